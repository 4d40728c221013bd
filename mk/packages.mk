# Packaging (stages 5 and 6 of the kernel pipeline): DEB and RPM from one
# kernel build, the mmbatchd packages, linting, the chroot install test and
# the reproducibility check. Scripts live in tools/pkg/, templates and specs
# in specs/, waivers in specs/lint/.

## build: packages  kernel DEB+RPM (image, headers, dbg when debug info) and mmbatchd DEB+RPM into out/packages/; prints the paths
PHONY += packages
packages: kernel tools man | deps-packages
	@$(TOP)/tools/pkg/packages.sh
MAIN_TARGETS += packages

## build: mmbatchd-pkg  the mmbatchd DEB+RPM only (no kernel build) into out/packages/; prints the paths
PHONY += mmbatchd-pkg
mmbatchd-pkg: tools man | deps-packages
	@$(TOP)/tools/pkg/mmbatchd-pkg.sh

## build: packages-lint  lintian + rpmlint (waivers in specs/lint/) on the packages of BASE/FLAVOR
PHONY += packages-lint
packages-lint: packages
	@$(TOP)/tools/pkg/check.sh lint

## build: pkg-chroot  the cached Debian 12 test chroot tarball (tools/pkg/mkchroot.sh); prints its path
PHONY += pkg-chroot
pkg-chroot: | deps-packages
	@$(TOP)/tools/pkg/mkchroot.sh tarball

## test: check-packages  guest packages of both bases: lint, contents, chroot install/purge with dracut, RPM scripts and payload
PHONY += check-packages
check-packages: tools | deps-packages
	@$(TOP)/tools/pkg/check.sh all

## test: repro-check  build the guest flavor twice from clean trees (out/repro/a, b) and compare every package byte for byte
PHONY += repro-check
repro-check: | deps-packages
	@$(TOP)/tools/pkg/repro-check.sh
