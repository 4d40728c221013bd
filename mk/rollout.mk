# Fleet rollout: module signing with a key from outside the build (SIGN_KEY)
# and distributed kernel builds (DISTCC_HOSTS), whose knobs live in the
# kernel pipeline (tools/kbuild/{lib,config,build}.sh; docs/building/
# signing.md and distcc.md), and the Ansible rollout through a fleet in
# waves (tools/rollout/collection; docs/operating/rollout.md).
#
# Knobs: SIGN_KEY=PEM (private key + certificate, see docs/building/signing.md), KBUILD_SIGN_PIN
# (its passphrase, if encrypted), DISTCC_HOSTS="host/N ...", BUILD_TARGETS.
#
# (One file for both, named to sort after mk/kernel.mk: mk/*.mk are included
# in name order, and these stages run after check-pipeline.)

export KBUILD_SIGN_PIN DISTCC_HOSTS BUILD_TARGETS

## test: check-sign  module signing: SIGN_KEY refusals, the guest's signed modules, enforcement in a VM
PHONY += check-sign
check-sign: | deps-kernel deps-vm deps-rollout deps-packages
	@$(TOP)/tests/sign/run.sh

## test: check-distcc  mm/ of the 6.12 guest compiled again through two local distccd, ccache off
PHONY += check-distcc
check-distcc: | deps-kernel deps-rollout
	@$(TOP)/tests/distcc/run.sh

## test: check-rollout  the Ansible rollout's tests that need no booted host; its VM test is a skip here
PHONY += check-rollout
check-rollout: guest-packages-6.12 $(BIN_DIR)/mmbench | deps-ansible deps-repo deps-packages
	@MMBENCH=$(BIN_DIR)/mmbench BUILD=$(call guest_build,6.12) $(TOP)/tests/rollout/run.sh

## test: check-rollout-vm  check-rollout with its VM test forced (three qemu hosts); records the pass
PHONY += check-rollout-vm
check-rollout-vm: guest-packages-6.12 guest-packages-6.1 canary-bad-kernel $(BIN_DIR)/mmbench | deps-ansible deps-vm deps-packages deps-canary deps-repo
	@MMBENCH=$(BIN_DIR)/mmbench BUILD=$(call guest_build,6.12) ROLLOUT_VM_FORCE=1 ROLLOUT_GOOD=$(call guest_build,6.12) ROLLOUT_NEW=$(call guest_build,6.1) \
		ROLLOUT_BAD="$$(cat $(CANARY_BAD_REF))" $(TOP)/tests/rollout/run.sh
