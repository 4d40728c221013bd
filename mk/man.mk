# Man pages: docs/man/NAME.SECTION.scd -> out/man/NAME.SECTION (scdoc), with
# the key table of mmbatchd.yaml(5) from `mmbatchd --list-keys` and the
# profiles of mmbatch-profiles(7) from configs/profiles/*.yaml filled in at
# build time (tools/man/build.sh). The mmbatchd DEB and RPM install them
# (specs/mmbatchd/files.list, @MAN@). And the version: main.c of mmbatchd
# and mmbench print MB_PKG_VERSION (mk/common.mk), so they are rebuilt when
# specs/mmbatchd/VERSION changes.

MAN_SRC_DIR := $(TOP)/docs/man
MAN_DIR     := $(OUT)/man
MAN_PAGES   := $(patsubst $(MAN_SRC_DIR)/%.scd,$(MAN_DIR)/%,$(wildcard $(MAN_SRC_DIR)/*.scd))
export MAN_DIR

## build: man  the man pages (docs/man/*.scd, scdoc) into out/man/
PHONY += man
man: $(MAN_PAGES)

$(MAN_DIR)/%: $(MAN_SRC_DIR)/%.scd $(TOP)/tools/man/build.sh $(MB_PKG_VERSION_FILE) $(BIN_DIR)/mmbatchd \
		$(wildcard $(TOP)/configs/profiles/*.yaml) | deps-man
	@MMBATCHD=$(BIN_DIR)/mmbatchd $(TOP)/tools/man/build.sh $< $@

$(OBJ_DIR)/mmbatchd/main.o $(OBJ_DIR)/mmbench/main.o $(OUT)/obj/static/mmbench/main.o: $(MB_PKG_VERSION_FILE)
