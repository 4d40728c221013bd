# Packaging (stages 5 and 6 of the kernel pipeline): DEB and RPM from one
# kernel build, the mmbatchd packages, linting, the chroot install test and
# the reproducibility check. Scripts live in tools/pkg/, templates and specs
# in specs/, waivers in specs/lint/, the test stage in tests/packages/.
#
# A build is named by its identity file, BUILD=out/build/<name>/mmbatch-build.env
# (tools/kbuild/identity.sh); packaging records the package paths in it.
# Without BUILD, `make packages` and `make packages-lint` take the build of the
# kbuild knobs (BASE, FLAVOR, ...), building it first.

## build: packages  kernel and mmbatchd DEB+RPM of BUILD=FILE (default: the knobs' build); prints the paths
PHONY += packages
packages: $(if $(BUILD),,kernel) tools man | deps-packages
	@$(TOP)/tools/pkg/packages.sh --from-knobs
MAIN_TARGETS += packages

## build: guest-packages  package every guest kernel (guest-packages-<base> for GUEST_BASES)
PHONY += guest-packages
GUEST_PACKAGES := $(addprefix guest-packages-,$(GUEST_BASES))
guest-packages: $(GUEST_PACKAGES)

## build: guest-packages-<base>  package <base>'s guest kernel (what the test stages depend on)
PHONY += $(GUEST_PACKAGES)
$(GUEST_PACKAGES): guest-packages-%: guest-kernel-% tools man | deps-packages
	@BUILD=$(call guest_build,$*) $(TOP)/tools/pkg/packages.sh

## build: debug-packages  package every debug guest kernel (debug-packages-<base> for GUEST_BASES)
PHONY += debug-packages
DEBUG_PACKAGES := $(addprefix debug-packages-,$(GUEST_BASES))
debug-packages: $(DEBUG_PACKAGES)

## build: debug-packages-<base>  package <base>'s debug guest kernel (names end in +debug)
PHONY += $(DEBUG_PACKAGES)
$(DEBUG_PACKAGES): debug-packages-%: debug-kernel-% tools man | deps-packages
	@BUILD=$(call debug_build,$*) $(TOP)/tools/pkg/packages.sh

## build: mmbatchd-pkg  the mmbatchd DEB+RPM only (no kernel build) into out/packages/; prints the paths
PHONY += mmbatchd-pkg
mmbatchd-pkg: tools man | deps-packages
	@$(TOP)/tools/pkg/mmbatchd-pkg.sh

## build: packages-lint  lintian + rpmlint on the packages of BUILD=FILE (default: the knobs' build)
PHONY += packages-lint
packages-lint: packages
	@$(TOP)/tools/pkg/lint.sh --from-knobs

## build: pkg-chroot  the cached Debian 12 test chroot tarball (tools/pkg/mkchroot.sh); prints its path
PHONY += pkg-chroot
pkg-chroot: | deps-packages
	@$(TOP)/tools/pkg/mkchroot.sh tarball

## test: check-chroots  the chroot tarballs later stages unpack, made when missing or stale, then checked
PHONY += check-chroots
check-chroots: | deps-packages
	@$(TOP)/tests/prebuild/chroots.sh

# The debug build whose packages check-packages installs beside the normal
# ones (one base is enough: the names are made the same way for both).
PKG_TEST_DEBUG_BASES := 6.12

## test: check-packages  lint, contents and chroot installs of the guest and 6.12 debug guest packages
PHONY += check-packages
check-packages: guest-packages $(addprefix debug-packages-,$(PKG_TEST_DEBUG_BASES)) | deps-packages
	@PKG_TEST_BUILDS="$(foreach b,$(GUEST_BASES),$(call guest_build,$(b)))" PKG_TEST_DEBUG_BUILDS="$(foreach b,$(PKG_TEST_DEBUG_BASES),$(call debug_build,$(b)))" $(TOP)/tests/packages/run.sh

## test: repro-check  build the guest flavor twice from clean trees; compare every package byte for byte
PHONY += repro-check
repro-check: | deps-packages
	@$(TOP)/tools/pkg/repro-check.sh

## bench: bench-codecs  the package compressors measured on one debug payload (CODEC_PAYLOAD=DIR|DEB)
PHONY += bench-codecs
bench-codecs: | deps-packages
	@[ -n "$(CODEC_PAYLOAD)" ] || { echo "ERROR: bench-codecs: CODEC_PAYLOAD is not set: a staged build's debug tree (out/pkgstage/<release>/dbg, FLAVOR=cloud) or a -dbg .deb (e.g. Debian's linux-image-<abi>-cloud-amd64-dbg: apt-get download)" >&2; exit 2; }
	@$(TOP)/tools/pkg/codec-bench.sh --repro $(if $(CODEC_CANDIDATES),--candidates "$(CODEC_CANDIDATES)") "$(CODEC_PAYLOAD)"
