# Stack frames of 0010's 63-entry folio_batch (6.12 at NR_CPUS=8192, where
# the series sizes the batch at 63; no upstream kernel runs that size):
# scripts/checkstack.pl on the patched guest build and on the PATCHES=0 build
# of the same source and NR_CPUS, every grown frame listed and each frame
# checked against Debian's CONFIG_FRAME_WARN. Logic in
# tools/kbuild/stack-compare.sh; the table is in patches/README.md.

STACK_NR_CPUS ?= 8192
STACK_DIR := $(OUT)/stack

## bench: stack-report  6.12 guest stack frames, NR_CPUS=8192, patched vs PATCHES=0 (out/stack/REPORT.md)
PHONY += stack-report
stack-report: | deps-kernel
	@$(TOP)/tools/kbuild/stack-report.sh $(STACK_DIR) $(STACK_NR_CPUS)
