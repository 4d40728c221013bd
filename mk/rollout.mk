# The Ansible rollout of a kernel through a fleet in waves
# (tools/rollout/collection; docs/operating/rollout.md).

## test: check-rollout  the Ansible rollout's tests that need no booted host; its VM test is a skip here
PHONY += check-rollout
check-rollout: guest-packages-6.12 $(BIN_DIR)/mmbench | deps-ansible deps-repo deps-packages
	@MMBENCH=$(BIN_DIR)/mmbench BUILD=$(call guest_build,6.12) $(TOP)/tests/rollout/run.sh

## test: check-rollout-vm  check-rollout with its VM test forced (three qemu hosts); records the pass
PHONY += check-rollout-vm
check-rollout-vm: guest-packages-6.12 guest-packages-6.1 canary-bad-kernel $(BIN_DIR)/mmbench | deps-ansible deps-vm deps-packages deps-canary deps-repo
	@MMBENCH=$(BIN_DIR)/mmbench BUILD=$(call guest_build,6.12) ROLLOUT_VM_FORCE=1 ROLLOUT_GOOD=$(call guest_build,6.12) ROLLOUT_NEW=$(call guest_build,6.1) \
		ROLLOUT_BAD="$$(cat $(CANARY_BAD_REF))" $(TOP)/tests/rollout/run.sh
