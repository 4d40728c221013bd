# The systemd units of the mmbatchd package (tests/units/).

# The daemon's --list-keys is the allowlist the unit's /proc/sys
# ReadWritePaths= must equal, hence the binary. It builds every program
# (tools, man): in make check the later stages, some of them side by side
# (CHECK_STAGES), then only read them and never build one file twice at once.
MBD_UNITS := $(addprefix $(TOP)/systemd/,mmbatchd.service mmbatch-smoke.service mmbatch-canary.service)

## test: check-units  systemd-analyze verify (systemd 252 and 257) + security of the three units
PHONY += check-units
check-units: tools man | deps-units
	@MMBATCHD=$(BIN_DIR)/mmbatchd $(TOP)/tests/units/run.sh $(MBD_UNITS)
