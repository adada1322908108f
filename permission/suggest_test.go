package permission

import (
	"context"
	"reflect"
	"testing"
)

// suggestCases are real command lines and the rules the dialog offers for them: the
// command's prefix up to its arguments, an interpreter's script or module included,
// and none where a rule could only be one that runs any code.
var suggestCases = []struct {
	line    string
	suggest []string // nil: no rule offered
}{
	// Python: the module or script is part of the rule.
	{"python3 -m unittest -q", []string{"Bash(python3 -m unittest *)"}},
	{"python3 -m unittest", []string{"Bash(python3 -m unittest *)"}},
	{"python3 -m pytest tests/ -q", []string{"Bash(python3 -m pytest *)"}},
	{"python -m pip install requests", []string{"Bash(python -m pip install *)"}},
	{"python3.12 -mpytest -x", []string{"Bash(python3.12 -mpytest *)"}},
	{"python3 -u scripts/gen.py --fast", []string{"Bash(python3 -u scripts/gen.py *)"}},
	{"python3 -W ignore tests/run.py", []string{"Bash(python3 -W ignore tests/run.py *)"}},
	{"python3 -B -X dev manage.py migrate", []string{"Bash(python3 -B -X dev manage.py *)"}},
	{"/usr/bin/python3 manage.py test", []string{"Bash(/usr/bin/python3 manage.py *)"}},
	{"python3 -- tool.py", []string{"Bash(python3 -- tool.py *)"}},
	{"python3 -c 'print(1)'", nil},
	{"python3 -uc 'print(1)'", nil},
	{"python3", nil},
	{"python3 -", nil},
	{"python3 < setup.py", nil},
	{"python3 -i repl.py", nil},
	{"python3 --frobnicate x.py", nil},
	{"python3 $SCRIPT", nil},
	{`"$PY" -m pytest`, nil},
	{"python3 tests/*.py", nil},
	{"python3 'my script.py'", nil},
	{"python3 /dev/stdin", nil},
	// node, ruby, perl, php, java, lua, shells.
	{"node scripts/build.js --prod", []string{"Bash(node scripts/build.js *)"}},
	{"node --test test/a.test.js", []string{"Bash(node --test test/a.test.js *)"}},
	{"node --max-old-space-size=4096 dist/index.js", []string{"Bash(node --max-old-space-size=4096 dist/index.js *)"}},
	{"node -r ts-node/register src/x.ts", []string{"Bash(node -r ts-node/register src/x.ts *)"}},
	{"node -e 'console.log(1)'", nil},
	{"node -p 1+1", nil},
	{"node --eval=1", nil},
	{"node --test", nil},
	{"nodejs", nil},
	{"ruby -Ilib test/x_test.rb", []string{"Bash(ruby -Ilib test/x_test.rb *)"}},
	{"ruby -e 'puts 1'", nil},
	{"perl -Ilib t/basic.t", []string{"Bash(perl -Ilib t/basic.t *)"}},
	{"perl -e 'print 1'", nil},
	{"perl -pi -e 's/a/b/' f.txt", nil},
	{"perl -I lib t/basic.t", nil},
	{"php artisan migrate", []string{"Bash(php artisan *)"}},
	{"php -r 'echo 1;'", nil},
	{"php -S localhost:8000", nil},
	{"java -jar build/app.jar --port 8080", []string{"Bash(java -jar build/app.jar *)"}},
	{"java -cp out -Dx=1 Main", []string{"Bash(java -cp out -Dx=1 Main *)"}},
	{"lua -e 'os.exit()'", nil},
	{"bash scripts/test.sh", []string{"Bash(bash scripts/test.sh *)"}},
	{"bash -e -o pipefail ci.sh --fast", []string{"Bash(bash -e -o pipefail ci.sh *)"}},
	{"sh ./configure --prefix=/usr/local", []string{"Bash(sh ./configure *)"}},
	{"bash -c 'npm test'", []string{"Bash(npm test *)"}},
	{`bash -c "$CMD"`, nil},
	{"bash < setup.sh", nil},
	{"sh -s", nil},
	{"bash -i", nil},
	{"zsh", nil},
	{"fish -c 'rm -r build'", nil},
	{"pwsh -c 'rm x'", nil},
	{"osascript -e 'beep'", nil},
	// Wrappers are looked through; what they run gets the rule, never the wrapper.
	{"env FOO=1 python3 x.py", []string{"Bash(python3 x.py *)"}},
	{"timeout 60 go test ./...", []string{"Bash(go test *)"}},
	{"nohup node server.js", []string{"Bash(node server.js *)"}},
	{"ls *.py | xargs python3 -m black", []string{"Bash(python3 -m black *)"}},
	{"sudo python3 x.py", nil},
	{"sudo make install", nil},
	{"env $X", nil},
	{"ssh build-host make", nil},
	{"awk -f prog.awk data.txt > out.txt", nil},
	// Tools with subcommands: the subcommand, and ` *` for the rest.
	{"git commit -m msg", []string{"Bash(git commit *)"}},
	{"git commit", []string{"Bash(git commit *)"}},
	{"git push origin main", []string{"Bash(git push *)"}},
	{"git stash pop", []string{"Bash(git stash pop *)"}},
	{"git -c core.hooksPath=/tmp commit -m x", nil},
	{"npm run test", []string{"Bash(npm run test *)"}},
	{"npm run test:unit -- --watch", []string{"Bash(npm run test:unit *)"}},
	{"npm run build", []string{"Bash(npm run build *)"}},
	{"npm test", []string{"Bash(npm test *)"}},
	{"npm install --save-dev jest", []string{"Bash(npm install *)"}},
	{"npm exec -- eslint .", nil},
	{"npm --prefix web test", nil},
	{"pnpm build", []string{"Bash(pnpm build *)"}},
	{"yarn run lint --fix", []string{"Bash(yarn run lint *)"}},
	{"go test ./...", []string{"Bash(go test *)"}},
	{"go test -run TestX -count=1 ./pkg", []string{"Bash(go test *)"}},
	{"go run ./cmd/server -addr :8080", []string{"Bash(go run ./cmd/server *)"}},
	{"go run -race .", nil},
	{"go mod tidy", []string{"Bash(go mod tidy *)"}},
	{"cargo test --release", []string{"Bash(cargo test *)"}},
	{"cargo +nightly build", nil},
	{"./gradlew test --info", []string{"Bash(./gradlew test *)"}},
	{"docker compose up -d", []string{"Bash(docker compose up *)"}},
	{"docker compose run web bash", nil},
	{"docker run --rm alpine ls", nil},
	{"docker exec -it web bash", nil},
	{"kubectl exec pod -- ls", nil},
	{"kubectl apply -f k8s/", []string{"Bash(kubectl apply *)"}},
	{"gh pr create --fill", []string{"Bash(gh pr create *)"}},
	{"deno task dev", []string{"Bash(deno task dev *)"}},
	{"deno run -A main.ts", nil},
	{"deno eval 'Deno.exit()'", nil},
	{"bun test", []string{"Bash(bun test *)"}},
	{"bun run build", []string{"Bash(bun run build *)"}},
	// Package runners: the command they run, read like any command.
	{"npx jest --watch", []string{"Bash(npx jest *)"}},
	{"npx tsc", []string{"Bash(npx tsc)"}},
	{"npx -y cowsay hi", nil},
	{"uv run pytest -q", []string{"Bash(uv run pytest *)"}},
	{"uv run python -m pytest", []string{"Bash(uv run python -m pytest *)"}},
	{"uv run python -c 'import os'", nil},
	{"uv run --with rich x.py", nil},
	{"poetry run python manage.py test", []string{"Bash(poetry run python manage.py *)"}},
	{"uvx ruff check .", []string{"Bash(uvx ruff check *)"}},
	{"bundle exec rspec spec/x_spec.rb", []string{"Bash(bundle exec rspec *)"}},
	// Other commands: the name and words that read as subcommands.
	{"make", []string{"Bash(make)"}},
	{"make lint", []string{"Bash(make lint)"}},
	{"make -j4", []string{"Bash(make *)"}},
	{"rm x", []string{"Bash(rm x)"}},
	{"pytest -q tests", []string{"Bash(pytest *)"}},
	{"./scripts/deploy.sh --dry-run", []string{"Bash(./scripts/deploy.sh *)"}},
	{"$(which python3) x.py", nil},
	// Compound lines: one rule per command that needs one, or none at all.
	{"go vet ./... && make lint", []string{"Bash(go vet *)", "Bash(make lint)"}},
	{"cd src && python3 -m unittest", []string{"Bash(python3 -m unittest *)"}},
	{"npm ci && npm run build | tee build.log", []string{"Bash(npm ci *)", "Bash(npm run build *)", "Bash(tee *)"}},
	{"npm run build && python3 -c 'print(1)'", nil},
	{"ls; bash -c \"$X\"", nil},
}

func TestSuggestedBashRules(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "default", rules{})
	var all []string
	for _, c := range suggestCases {
		v := p.Check(context.Background(), e.call("Bash", bash(c.line)))
		if v.Behavior != Ask {
			t.Errorf("%s: %v (%s), want it to ask", c.line, v.Behavior, v.Reason)
			continue
		}
		if !reflect.DeepEqual(v.Suggest, c.suggest) {
			t.Errorf("%s: suggested %q, want %q (reason %q)", c.line, v.Suggest, c.suggest, v.Reason)
			continue
		}
		if len(c.suggest) == 0 {
			continue
		}
		all = append(all, c.suggest...)
		// The rules offered cover the call they were offered for.
		v = e.policy(t, "default", rules{allow: c.suggest}).Check(context.Background(), e.call("Bash", bash(c.line)))
		if v.Behavior != Allow {
			t.Errorf("%s: with %q allowed it is %v (%s), want allowed", c.line, c.suggest, v.Behavior, v.Reason)
		}
	}
	// Even with every rule above allowed, an interpreter, wrapper or runner still asks
	// before it runs code of the model's choosing.
	p = e.policy(t, "default", rules{allow: all})
	for _, line := range []string{"python3 -c 'import os; os.remove(\"x\")'", "python3 evil.py", "python3 -m evil",
		"python3 -m unittest; python3 -c 1", "python3", "node -e 1", "node evil.js", "bash evil.sh", "bash",
		"sh -c \"$X\"", "perl -e 1", "ruby -e 1", "php -r 1", "uv run python -c 1", "uv run evil", "npx evil",
		"go run evil.go", "npm run evil", "npm exec evil", "docker run alpine sh", "bash scripts/test.sh2",
		"java -jar evil.jar", "poetry run python -c 1", "bundle exec ruby -e 1", "python3 -m pip download x"} {
		if v := p.Check(context.Background(), e.call("Bash", bash(line))); v.Behavior == Allow {
			t.Errorf("%s: allowed (%s) by the suggested rules", line, v.Source)
		}
	}
}
