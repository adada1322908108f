package permission

import (
	"strings"
	"testing"

	"github.com/ouroagent/ouro/shell"
)

// hardDenied are lines refused in every mode: each spelling of each destructive form.
var hardDenied = []string{
	// rm -r of /, ~, $HOME, /home, .., and their spellings.
	"rm -rf /", "rm -fr /", "rm -r -f /", "rm -R -f /", "rm -Rf /", "rm -r /",
	"rm --recursive --force /", "rm --recursive /", "rm -rf --no-preserve-root /",
	"rm -rf -- /", "rm / -rf", "rm -rf //", "rm -rf /./", "rm -rf /usr/..", "rm -rf /*", "rm -rf /?*",
	"rm -rf ~", "rm -rf ~/", "rm -rf ~/*", "rm -rf ~/.*", "rm -rf ~/..", "rm -rf ~root", "rm -rf ~alice/",
	"rm -rf $HOME", `rm -rf "$HOME"`, "rm -rf ${HOME}", `rm -rf "${HOME}/"`, "rm -rf $HOME/*", "rm -rf ${HOME:?}/",
	"rm -rf /home", "rm -rf /home/alice", "rm -rf /home/*", "rm -rf /Users/bob", "rm -rf /root",
	"rm -rf /usr", "rm -rf /usr/lib", "rm -rf /etc/", "rm -rf /etc/*", "rm -rf /var", "rm -rf /boot", "rm -rf /tmp",
	"rm -rf ..", "rm -rf ../", "rm -rf ../..", "rm -rf ../*", "rm -rf ./..",
	`rm -rf "/"`, "rm -rf '/'", `\rm -rf /`, "r''m -rf /", `"rm" -rf /`, "'rm' -rf ~", "/bin/rm -rf /",
	"{rm,-rf,/}", `$'\x72\x6d' -rf /`, `$'\162m' -rf /`, "rm -r${X}f /",
	// Wrappers and sudo.
	"sudo rm -rf /", "sudo -u root rm -rf /", "sudo -E -- rm -rf /*", "doas rm -rf /",
	"timeout 5 rm -rf /", "env rm -rf ~", "env -i X=1 rm -rf ~", "nice -n 19 rm -rf /", "nohup rm -rf / &",
	"command rm -rf /", "exec rm -rf /", "busybox rm -rf /", "xargs rm -rf /", "time rm -rf /",
	"stdbuf -o0 rm -rf /", "ionice -c3 rm -rf /", "setsid rm -rf /", "env -S 'rm -rf /'",
	"sudo timeout 5 env X=1 nice rm -rf /", "timeout 1 sudo rm -rf --no-preserve-root /",
	// Inside other constructs.
	"bash -c 'rm -rf /'", `sh -c "rm -rf ~/"`, "sudo bash -c 'rm -rf /'", `bash -c 'bash -c "rm -rf /"'`,
	`eval "rm -rf /"`, "ls && rm -rf /", "ls\nrm -rf /", "npm run build; rm -rf ~", "echo $(rm -rf ~)",
	"echo `rm -rf /`", "cat <<EOF\n$(rm -rf /)\nEOF", "if true; then rm -rf /; fi", "f(){ rm -rf /; }",
	"(rm -rf /)", "{ rm -rf /; }", "for x in 1; do rm -rf ~; done", "diff <(rm -rf /) x",
	"bash <<EOF\nrm -rf /\nEOF", "trap 'rm -rf /' EXIT", "watch rm -rf /", "rm -rf /\n(",
	". /dev/stdin <<< 'rm -rf /'", "bash -s <<< 'rm -rf ~'", "su -c 'rm -rf /' root", "script -qc 'rm -rf /' /dev/null",
	"flock /tmp/l rm -rf /", "sudo su - -c 'mkfs.ext4 /dev/sda'",
	// cd before a relative operand.
	"cd / && rm -rf *", "cd ~ && rm -rf *", "(cd /; rm -rf *)", "cd /usr && rm -rf lib", "cd ~ && rm -rf .",
	"cd /; rm -rf *", "if c; then cd ~; fi; rm -rf *", "cd /tmp || cd /; rm -rf *", "cd /tmp/x; cd ..; rm -rf *",
	// find deleting a whole tree.
	"find / -delete", "find ~ -exec rm -rf {} +", "sudo find / -name '*' -delete",
	// File systems and disks.
	"mkfs.ext4 /dev/sda1", "mkfs -t ext4 /dev/sdb", "sudo mkfs.xfs /dev/nvme0n1p1", "mke2fs /dev/sdc",
	"mkfs.vfat disk.img", "dd if=/dev/zero of=/dev/sda", "dd if=/dev/urandom of=/dev/nvme0n1 bs=1M",
	"sudo dd if=image.iso of=/dev/sdb bs=4M", "dd if=/dev/zero of=/dev/mmcblk0", "dd of=/dev/disk2 if=x",
	"dd if=x of=/dev/mapper/root", "echo x > /dev/sda", "cat image.bin > /dev/sda", "> /dev/sda",
	"cat x >> /dev/nvme0n1", "ls &> /dev/sdb", "sudo tee /dev/sda < image.bin", "shred /dev/sda",
	"wipefs -a /dev/sda", "cp image.bin /dev/sdb", "sudo sh -c 'cat x > /dev/sda'",
	// Fork bombs, named and renamed.
	":(){ :|:& };:", ":(){ : | : & }; :", "bomb(){ bomb|bomb& };bomb", "f() { f | f & }; f",
	"x(){ x & x; }; x", "function b { b | b & }; b", "y(){ y|y; }; y", "bash -c ':(){ :|:& };:'",
	"f(){ $FUNCNAME|$FUNCNAME& }; f", "g(){ \"${FUNCNAME[0]}\" | g & }; g", "h(){ (h &); h; }; h",
	// chmod/chown -R on /.
	"chmod -R 777 /", "chmod 777 -R /", "chmod --recursive 777 /", "sudo chmod -R 777 /",
	"chmod -R a+rwx ~", "chmod -R 000 /etc", "chown -R nobody /", "sudo chown -R user:user /",
	"chgrp -R staff /usr", "chown -R me ~/",
	// Machine state.
	"shutdown -h now", "shutdown now", "sudo shutdown -r now", "reboot", "sudo reboot", "halt", "poweroff",
	"/sbin/reboot", "init 0", "sudo init 6", "telinit 0", "systemctl reboot", "sudo systemctl poweroff",
	"kill -9 -1", "kill -KILL -1", "kill -s KILL -1", "kill -- -1",
}

// notHardDenied are destructive or odd but bounded: the rules decide them.
var notHardDenied = []string{
	"rm -rf ./build", "rm -rf /tmp/x", "rm -rf /tmp/*", "rm -rf build/", "rm -rf node_modules",
	"rm -r src/old", "rm -f /etc/nothing.conf", "rm -rf ~/.cache/go-build", "rm ~", "rm -f /", "rm -rf .",
	"rm -rf ./*", "rm -rf *", "rm -rf $BUILD_DIR", "rm -rf $X/", "rm -rf '$HOMEDIR'", "rm -rf /home/alice/proj/build",
	"rm -rf /usr/local/lib/foo", "rm -rf ../sibling", "chmod -R 755 ./scripts", "chmod 777 /",
	"chmod -r /etc", "chown user file.txt", "chown -R me ./dir", "dd if=/dev/zero of=./disk.img bs=1M count=10",
	"dd if=/dev/sda of=backup.img", "cat /dev/sda > backup.img", "echo x > /dev/null", "ls 2>/dev/stderr",
	"kill 1234", "kill -9 1234", "kill -1 1234", "git rm -rf old", "echo rm -rf /", "grep -r 'rm -rf /' .",
	`echo "rm -rf /"`, "printf 'rm -rf ~'", "fdisk -l /dev/sda", "parted /dev/sda print", "init 3",
	"systemctl restart nginx", "find . -delete", "find /tmp/x -delete", "find / -name x", "mv / /tmp",
	"f(){ f; }; f", "f(){ f & }; f", "g(){ echo; }; g | g &", "cat /dev/sda | head", "ls /",
	"shutdownd", "rebooter", "cd / && ls", "cd /tmp && rm -rf *", "cd $D && rm -rf *", "echo '(){ :|:& };:'",
	"cd /tmp/x || exit; rm -rf *", "cd /tmp/x && cd y && rm -rf *", "(cd /); rm -rf build",
	"mkfsx", "fmkfs",
}

func TestHardDeny(t *testing.T) {
	for _, src := range hardDenied {
		reason, ok := HardDeny(shell.Analyze(src))
		if !ok {
			t.Errorf("%q: not hard-denied", src)
			continue
		}
		if reason == "" {
			t.Errorf("%q: hard-denied without a reason", src)
		}
	}
	for _, src := range notHardDenied {
		if reason, ok := HardDeny(shell.Analyze(src)); ok {
			t.Errorf("%q: hard-denied (%s)", src, reason)
		}
	}
}

func TestHardDenyReason(t *testing.T) {
	reason, _ := HardDeny(shell.Analyze("go test ./... && sudo rm -rf /"))
	for _, want := range []string{"rm -r", "as root", "sudo rm -rf /"} {
		if !strings.Contains(reason, want) {
			t.Errorf("reason %q lacks %q", reason, want)
		}
	}
	reason, _ = HardDeny(shell.Analyze(":(){ :|:& };:"))
	if !strings.Contains(reason, "fork bomb") {
		t.Errorf("fork bomb reason: %q", reason)
	}
	long := "rm -rf / " + strings.Repeat("é", 300)
	if reason, _ := HardDeny(shell.Analyze(long)); len(reason) > 300 || !strings.HasSuffix(reason, "…") {
		t.Errorf("long reason not clipped at a rune boundary: %q", reason)
	}
}

func TestCatastrophicPath(t *testing.T) {
	yes := []string{"/", "//", "/*", "/.", "/..", "/etc", "/etc/", "/etc/*", "/home/x", "/home/x/", "/usr/lib",
		"~", "~/", "~/.", "~/*", "~/.*", "~/..", "~/a/../..", "~u", "$HOME", "$HOME/", "${HOME}", "${HOME:-/x}", "..", "../..", "../*"}
	no := []string{"", ".", "./x", "x", "/tmp/x", "/home/x/y", "/usr/lib/x", "~/x", "~/x/*", "$HOMEX", "$HOME/x", "../x", "./..x", "/tmp/*"}
	for _, p := range yes {
		if !catastrophicPath(p) {
			t.Errorf("catastrophicPath(%q) = false", p)
		}
	}
	for _, p := range no {
		if catastrophicPath(p) {
			t.Errorf("catastrophicPath(%q) = true", p)
		}
	}
}
