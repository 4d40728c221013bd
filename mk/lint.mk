# The lint stage: shellcheck at severity warning over every shell script of
# the repository (tools/lint/shell-files.sh), and a reason beside every
# `shellcheck disable=` directive. In make check it runs in the first
# step's side lane, beside the kernel builds.

## test: check-lint  shellcheck -S warning over every shell script; every disable says why
PHONY += check-lint
check-lint: | deps-lint
	@$(TOP)/tests/lint/run.sh
