# Signed package repositories: an apt and a yum repository made from what
# `make packages` left in out/packages/ (or, with BUILD=FILE, from the
# packages that build's identity file records), into out/repo/, both signed with the
# key given by REPO_KEY (a secret key file, a key id in your keyring, or
# `generate` for a throwaway key kept in out/repo-key/). Scripts in
# tools/repo/, the test stage in tests/repo/.
#
# Knobs: REPO_KEY (required), REPO_KEY_PASSFILE, REPO_URL (where clients
# fetch out/repo/ from; default its file:// path), REPO_SUITE (bookworm),
# REPO_ORIGIN, REPO_OUT, REPO_PACKAGES, REPO_REPLACE=1, REPO_VALID_DAYS (7:
# the apt Release's Valid-Until is its Date + that; every `make repo` re-signs
# it, so run it again, e.g. daily, well within that time).

export REPO_KEY REPO_KEY_PASSFILE REPO_URL REPO_SUITE REPO_ORIGIN REPO_OUT REPO_PACKAGES REPO_REPLACE REPO_VALID_DAYS

## build: repo  signed apt + yum repositories of out/packages/ into out/repo/ (REPO_KEY=FILE|ID|generate)
PHONY += repo
repo: | deps-repo
	@$(TOP)/tools/repo/mkrepo.sh

## test: check-repo  signed apt + yum repositories of the guest packages: install, upgrade, refusals
PHONY += check-repo
check-repo: guest-packages-6.12 | deps-repo deps-packages deps-vm
	@BUILD=$(call guest_build,6.12) $(TOP)/tests/repo/run.sh
