# Fleet rollout: module signing with a key from outside the build (SIGN_KEY)
# and distributed kernel builds (DISTCC_HOSTS). The knobs themselves live in
# the kernel pipeline (tools/kbuild/{lib,config,build}.sh); this file holds
# their tests. docs/building/signing.md and docs/building/distcc.md.
#
# Knobs: SIGN_KEY=PEM (private key + certificate, see docs/building/signing.md), KBUILD_SIGN_PIN
# (its passphrase, if encrypted), DISTCC_HOSTS="host/N ...", BUILD_TARGETS.
#
# (One file for both, named to sort after mk/kernel.mk: mk/*.mk are included
# in name order, and these stages run after check-pipeline.)

export KBUILD_SIGN_PIN DISTCC_HOSTS BUILD_TARGETS

## test: check-sign  bad SIGN_KEY fails config; 6.12 guest signed with a throwaway key + MODULE_SIG_FORCE, read by its identity file: signed module loads, unsigned and foreign-key ones refused (VM) (ONLY=sign/config|unsigned|build|vm)
PHONY += check-sign
check-sign: | deps-kernel deps-vm deps-rollout
	@$(TOP)/tests/sign/run.sh

## test: check-distcc  two local distccd daemons; part of a 6.12 guest build (mm/) through DISTCC_HOSTS with ccache off, read by its identity file; both daemons' logs show compiles
PHONY += check-distcc
check-distcc: | deps-kernel deps-rollout
	@$(TOP)/tests/distcc/run.sh
