package skill

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

func TestExpandDynamic(t *testing.T) {
	var ran []string
	run := func(_ context.Context, c string) string { ran = append(ran, c); return "<" + c + ">" }
	in := "- status: !`git status`\n!`date`\nnot a command: `!x` and wow!`no`\n(!`pwd`) and `code`\n"
	got := ExpandDynamic(context.Background(), in, run)
	want := "- status: <git status>\n<date>\nnot a command: `!x` and wow!`no`\n(<pwd>) and `code`\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if strings.Join(ran, "|") != "git status|date|pwd" {
		t.Errorf("ran %q", ran)
	}
	if HasDynamic("plain `code` only") || !HasDynamic("!`ls`") {
		t.Error("HasDynamic")
	}
}

func TestExpandDynamicBounded(t *testing.T) {
	var sb strings.Builder
	for i := range MaxDynamic + 3 {
		fmt.Fprintf(&sb, "!`echo %d`\n", i)
	}
	n := 0
	got := ExpandDynamic(context.Background(), sb.String(), func(context.Context, string) string { n++; return "x" })
	if n != MaxDynamic || !strings.Contains(got, "3 more !`command` were not run") || !strings.Contains(got, fmt.Sprintf("!`echo %d`", MaxDynamic)) {
		t.Errorf("ran %d:\n%s", n, got)
	}
}

// What a command prints is not read for more commands: output cannot smuggle one in.
func TestExpandDynamicDoesNotRescanOutput(t *testing.T) {
	var ran []string
	got := ExpandDynamic(context.Background(), "a: !`first`\n", func(_ context.Context, c string) string {
		ran = append(ran, c)
		return "!`second`"
	})
	if len(ran) != 1 || got != "a: !`second`\n" {
		t.Errorf("ran %q, got %q", ran, got)
	}
}

// A ```! block (Claude Code) runs its lines as one command, in the block's place, in
// the same single pass as !`command`: a block's output holding !`x` or another block
// runs nothing, and a block that is not closed, or a plain ``` block, is text.
func TestExpandDynamicFencedBlock(t *testing.T) {
	var ran []string
	run := func(_ context.Context, c string) string {
		ran = append(ran, c)
		return "OUT[" + c + "]\n!`smuggled`\n```!\nrm -rf /\n```\n"
	}
	in := "Status:\n```!\ngit status --short\ngit log --oneline -5\n```\nthen !`date` and\n```sh\nnot run\n```\n```!\nnever closed\n"
	got := ExpandDynamic(context.Background(), in, run)
	if strings.Join(ran, "|") != "git status --short\ngit log --oneline -5|date" {
		t.Fatalf("ran %q", ran)
	}
	if !strings.HasPrefix(got, "Status:\nOUT[git status --short\ngit log --oneline -5]\n!`smuggled`") ||
		!strings.Contains(got, "```sh\nnot run\n```") || !strings.Contains(got, "```!\nnever closed") {
		t.Errorf("got:\n%s", got)
	}
	if !HasDynamic("a\n```!\nls\n```\n") || HasDynamic("```\nls\n```\n") {
		t.Error("HasDynamic of blocks")
	}
}
