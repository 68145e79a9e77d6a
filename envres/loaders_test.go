package envres

import "testing"

// TestLoaderClass: what is a load and what is not, by what the
// substitution's output becomes (contract §4; issue #28 item 4).
func TestLoaderClass(t *testing.T) {
	const sh = "#!/bin/bash\n"
	runLintCases(t, []lintCase{
		// A substitution after '=' is a value: a dynamic assignment, not
		// an env-file load (devcontainers' find_version_from_git_tags,
		// the Docker _FILE secrets convention).
		{"declare -g dynamic name with a value", map[string]string{"run.sh": sh + "n=VER\ndeclare -g ${n}=\"$(git ls-remote --tags x | head -n 1)\"\nexport \"$n\"=\"$(cat \"$SECRET_FILE\")\"\nexec ./api\n"},
			Config{}, []at{}},
		{"export of a substitution of an unknown file is still a load", map[string]string{"run.sh": sh + "export $(grep -v '^#' \"$ENV_FILE\" | xargs)\nexec ./api\n"},
			Config{}, []at{{"env-file-load", "run.sh", 2, ""}}},
		// Text tools between the file and export, and globs over several files.
		{"egrep over a glob of secrets", map[string]string{"run.sh": sh + "export $(egrep -v '^#' secrets/* | xargs)\nexec ./api\n",
			"secrets/a": "API_MODE=prod\n", "secrets/b": "B=2\n"},
			Config{Overrides: apiTest}, []at{{"env-file-clobber", "run.sh", 2, "API_MODE"}, {"env-file-load", "run.sh", 2, "B"}}},
		{"grep over two files", map[string]string{"run.sh": sh + "export $(grep -hv '^#' a.env b.env | xargs)\nexec ./api\n",
			"a.env": "X=1\n", "b.env": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{{"env-file-clobber", "run.sh", 2, "API_MODE"}, {"env-file-load", "run.sh", 2, "X"}}},
		{"a quoted glob is one file", map[string]string{"run.sh": sh + "export $(cat 'secrets/*' | xargs)\nexec ./api\n",
			"secrets/a": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{{"env-file-load", "run.sh", 2, ""}}},
		{"perl -ne", map[string]string{"run.sh": sh + "export $(perl -ne 'print unless /^#/' .env | xargs)\nexec ./api\n", ".env": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{{"env-file-clobber", "run.sh", 2, "API_MODE"}}},
		{"sed, cut, tr, awk, rg, envsubst, declare -x, source <(…)", map[string]string{"run.sh": sh +
			"export $(sed -e '/^#/d' a.env | xargs)\nexport $(cut -d= -f1,2 a.env | tr -d '\\r')\nexport $(awk '!/^#/' a.env)\n" +
			"export $(rg -v '^#' a.env | xargs)\nexport $(envsubst < a.env | xargs)\ndeclare -x $(grep -v '^#' a.env)\n" +
			"source <(grep -v '^#' a.env | sed 's/^/export /')\nexec ./api\n", "a.env": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{{"env-file-clobber", "run.sh", 2, "API_MODE"}, {"env-file-clobber", "run.sh", 3, "API_MODE"},
				{"env-file-clobber", "run.sh", 4, "API_MODE"}, {"env-file-clobber", "run.sh", 5, "API_MODE"}, {"env-file-clobber", "run.sh", 6, "API_MODE"},
				{"env-file-clobber", "run.sh", 7, "API_MODE"}, {"env-file-clobber", "run.sh", 8, "API_MODE"}}},
		// Dotenv runners behind package runners.
		{"uvx dotenv run", map[string]string{"run.sh": sh + "exec uvx --from \"python-dotenv[cli]\" dotenv run -- ./api\n", ".env": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{{"env-file-clobber", "run.sh", 2, "API_MODE"}}},
		{"poetry run, uv run, pipx run, npx, pnpm exec", map[string]string{"run.sh": sh +
			"poetry run dotenv run -- ./migrate\nuv run dotenv run ./migrate\npipx run --spec python-dotenv dotenv run ./migrate\n" +
			"npx dotenv-cli -o -- ./migrate\npnpm exec dotenvx run -o -- ./migrate\n", ".env": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{{"env-file-clobber", "run.sh", 2, "API_MODE"}, {"env-file-clobber", "run.sh", 3, "API_MODE"},
				{"env-file-clobber", "run.sh", 4, "API_MODE"}, {"env-file-clobber", "run.sh", 5, "API_MODE"}, {"env-file-clobber", "run.sh", 6, "API_MODE"}}},
		{"npx dotenv-cli without -o does not override", map[string]string{"run.sh": sh + "exec npx dotenv-cli -- ./api\n", ".env": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{}},
		// Activation with any prefix inside the substitution.
		{"eval direnv export after cd", map[string]string{"run.sh": sh + "DIR=/srv\neval \"$(cd \"$DIR\" && direnv export bash)\"\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{{"env-activate", "run.sh", 3, "API_MODE"}}},
		{"eval command direnv export", map[string]string{"run.sh": sh + "eval \"$(command direnv export bash 2>/dev/null)\"\nexec ./api\n"},
			Config{Overrides: apiTest}, []at{{"env-activate", "run.sh", 2, "API_MODE"}}},
		// A helper meant to be sourced: it starts no worker, its load is reported.
		{"sourced helper that loads", map[string]string{"run.sh": sh + "set -a\n. ./.env\nset +a\n", ".env": "API_MODE=prod\nX=1\n"},
			Config{Overrides: apiTest}, []at{{"env-file-clobber", "run.sh", 3, "API_MODE"}, {"env-file-load", "run.sh", 3, "X"}}},
		{"helper that only defines functions", map[string]string{"run.sh": sh + "load() { set -a; . ./.env; set +a; }\n", ".env": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{}},
		// Fill-only needs the guard to test the very name assigned.
		{"fill-only guard of the name", map[string]string{"run.sh": sh + "while IFS== read -r k v; do\n  [ -z \"${!k}\" ] && export \"$k=$v\"\ndone < .env\nexec ./api\n", ".env": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{}},
		{"guard of another name", map[string]string{"run.sh": sh + "while IFS== read -r k v; do\n  [ -z \"${!other}\" ] && export \"$k=$v\"\ndone < .env\nexec ./api\n", ".env": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{{"env-file-clobber", "run.sh", 4, "API_MODE"}}},
		{"-v guard of another name", map[string]string{"run.sh": sh + "while IFS== read -r key value; do\n  if [[ -v $name ]]; then :; else export \"$key=$value\"; fi\ndone < .env\nexec ./api\n", ".env": "API_MODE=prod\n"},
			Config{Overrides: apiTest}, []at{{"env-file-clobber", "run.sh", 4, "API_MODE"}}},
	})
}
