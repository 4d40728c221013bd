# Canary boot with automatic rollback: `mmbatchctl canary KVER` (src/mmbatchctl/)
# boots a newly installed kernel once through GRUB; mmbatch-canary.service
# makes it the default only when its first-boot smoke run passed, otherwise
# the machine goes back to the previous kernel. README "Canary boots".
#
# (Named to sort before mk/vm.mk: mk/*.mk are included in name order, so
# check-canary runs after the packaging and rollout stages and before check-vm.)

## test: check-canary  mmbatchctl against real GRUB tools on scratch trees and its daemon commands against the real mmbatchd, then the whole cycle in a VM: a kernel built to fail the smoke gate rolls back, a good one becomes the default
PHONY += check-canary
check-canary: $(BIN_DIR)/mmbatchd | deps-vm deps-packages deps-canary
	@MMBATCHD=$(BIN_DIR)/mmbatchd $(TOP)/tests/canary/run.sh
