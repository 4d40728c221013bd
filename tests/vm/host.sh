# shellcheck shell=bash
# Host side of the guest checks (sourced after tests/lib/assert.sh by
# tests/vm/guest.sh and tests/canary/vm_run.sh). The guest scripts
# (quick_test.sh, full_test.sh, tests/canary/guest_step.sh) run under
# busybox sh or dash inside the guest, where assert.sh (bash) cannot run:
# they keep tests/vm/lib.sh's one-line results ("ok", "FAIL", "NOT-LIVE")
# and the host counts each line as assert.sh's pass, fail or skip, so a
# guest check is counted like any other.
#
#   guest_results FILE   FILE: the guest's output (vmtest's stdout). Prints
#                        its other lines indented, records every result line
#                        (the dumped kernel log, below, is left to
#                        guest_splats).
#   guest_splats OUT CONSOLE [--no-dump WHY | --not-judged WHY | --blank-offline]
#                        any kernel splat fails the guest check: the kernel
#                        log the guest dumped into OUT (lib.sh's
#                        vm_dump_kernel_log, written to OUT's name with .dmesg
#                        for .out) and the serial console log CONSOLE (without
#                        that dump and the guest script's result lines) are
#                        each scanned by splat_scan. A log that
#                        was not dumped in whole is a fail; --no-dump: this
#                        boot runs no guest command (a boot that reboots
#                        before it), only CONSOLE is scanned, WHY is printed;
#                        --not-judged: as --no-dump, for a kernel built to
#                        corrupt memory (a negative control), where a report
#                        is one of its expected symptoms (the integrity
#                        negative control saw general protection faults in
#                        its processes): the console's reports are printed
#                        with WHY, counted neither as a pass nor as a fail;
#                        --blank-offline: a guest that offlines memory, whose
#                        page dumps (offline_dumps, below) are blanked for
#                        the scans and counted in offline_note.
#   splat_scan LABEL FILE [--not-judged WHY]
#                        one fail per kernel report in FILE ("kernel splat in
#                        LABEL line N: FIRST LINE"), else one pass ("no kernel
#                        splat in LABEL (N lines scanned)"); --not-judged:
#                        each report and their count printed with WHY, no
#                        pass, no fail (a missing FILE still fails).
#   splat_reports FILE   the reports alone, one per line: "N<TAB>new|known<TAB>
#                        FIRST LINE", then "lines<TAB>N" (for tests).
#
# What a report is. A line (its "[ seconds]" / "[ seconds][ T1]" stamp and a
# "<level>" prefix removed) matching one of splat_patterns opens a report;
# the lines after it belong to it until it closes: at "---[ end trace" or
# "---[ end Kernel panic", at a line of ten or more '=' (KASAN and UBSAN
# frame their reports with them), at the "</TASK>" ending its first call
# trace (not for KASAN/UBSAN reports, which print more after the trace), or
# after 400 lines. A pattern line inside an open report is part of it (a
# WARN()'s "WARNING: CPU: ..." after its message, "page dumped because"
# inside a KASAN report), so each report fails once, named by its first line.
# A report is known, and passes, only when its first line or the line right
# before it (a WARN()'s message) is, character for character, one of the
# lines of tests/vm/splat_known.txt (SPLAT_KNOWN overrides the file).

guest_results() {
	local line what
	while IFS= read -r line; do
		case $line in
		"ok       "*) pass "${line#ok       }" ;;
		"FAIL     "*) fail "${line#FAIL     }" ;;
		"NOT-LIVE "*)
			# "NOT-LIVE NAME: WHY" (NAME may hold ": ", WHY does not): a
			# check this guest's kernel or config cannot run; counted as
			# skipped, never as passed.
			what=${line#NOT-LIVE }
			skip "${what%: *}" "not live on this guest: ${what##*: }" ;;
		"dmesg | "*) ;;
		"@@DMESG-BEGIN@@") echo "    | (the guest's kernel log: see the splat checks)" ;;
		"@@DMESG-END "*) ;;
		*) printf '    | %s\n' "$line" ;;
		esac
	done < "$1"
}

# The report openers (extended regular expressions, any one in a line).
splat_patterns=(
	'BUG:'                                  # BUG: KASAN/KFENCE, unable to handle page fault, soft lockup, Bad page state, sleeping function ...
	'WARNING:'                              # WARN(), and lockdep's "WARNING: possible ... locking ..." headers
	'Oops'                                  # page fault / GP oops header
	'general protection fault'
	'Kernel panic'
	'kernel BUG at'                         # BUG()/BUG_ON() (the next line is "invalid opcode:")
	'invalid opcode:'
	'Unable to handle kernel'
	'possible circular locking dependency'  # lockdep (the header line also says WARNING:)
	'possible recursive locking'
	'inconsistent lock state'
	'possible irq lock inversion'
	'suspicious RCU usage'
	'INFO: lockdep'                         # "INFO: lockdep is turned off." (an earlier report turned it off)
	'INFO: trying to register non-static key'
	'DEBUG_LOCKS_WARN_ON'
	'KASAN:'
	'UBSAN:'
	'rcu: INFO: rcu_.* detected stalls'
	'INFO: rcu_.* detected stalls'
	'detected stall'                        # rcu_tasks, expedited stalls
	'INFO: task .* blocked for more than'   # hung tasks
	'sleeping function called from invalid context'
	'list_add corruption'
	'list_del corruption'
	'ODEBUG:'
	'page dumped because'
	'Bad page'
)

splat_known_file() { echo "${SPLAT_KNOWN:-$(dirname "${BASH_SOURCE[0]}")/splat_known.txt}"; }

splat_reports() {
	local pat known
	pat=$(printf '%s\n' "${splat_patterns[@]}" | sed 's/ *#.*$//' | paste -sd'|')
	known=$(splat_known_file)
	[ -r "$known" ] || { echo "ERROR: splat_reports: no known-lines file $known" >&2; return 2; }
	LC_ALL=C awk -v pat="$pat" -v known="$known" '
		BEGIN {
			while ((getline k < known) > 0) if (k != "" && k !~ /^#/) K[k] = 1
			close(known)
		}
		{
			l = $0
			sub(/\r$/, "", l)
			sub(/^<[0-9]+>/, "", l)
			sub(/^\[ *[0-9]+\.[0-9]+\](\[ *[TC][0-9]+\])? ?/, "", l)
			n++
			# ten or more "=": no {10,}, which mawk (Debian 12 awk) does not know
			closer = (l ~ /^---\[ end (trace|Kernel panic)/ || l ~ /^==========+$/)
			if (open) {
				if (closer || (!framed && l ~ /^ *<\/TASK>$/) || n - start >= 400) open = 0
			} else if (!closer && l ~ pat) {
				open = 1; start = n; framed = (l ~ /KASAN:|UBSAN:/)
				print n "\t" ((l in K || (n > 1 && prev in K)) ? "known" : "new") "\t" l
			}
			prev = l
		}
		END { print "lines\t" n + 0 }' "$1"
}

splat_scan() {
	local label=$1 file=$2 why='' reports n kind first lines=0 new=0 known=''
	[ "${3:-}" != --not-judged ] || why=${4:-}
	if [ ! -s "$file" ]; then
		fail "kernel splat scan of $label: $file is missing or empty (nothing to scan is not a clean log)"
		return 0
	fi
	reports=$(splat_reports "$file") || { fail "kernel splat scan of $label: the scanner failed"; return 0; }
	while IFS=$'\t' read -r n kind first; do
		[ "$n" != lines ] || { lines=$kind; continue; }
		case $kind in
		new)
			new=$((new + 1))
			if [ -n "$why" ]; then echo "    | not judged ($why): report in $label line $n: $first"
			else fail "kernel splat in $label line $n: $first"; fi ;;
		known) known+="${known:+; }line $n '$first'" ;;
		esac
	done <<< "$reports"
	if [ -n "$why" ]; then
		echo "    | $label: $new new report(s) in $lines lines, not judged: $why"
	elif [ "$new" -eq 0 ]; then
		pass "no kernel splat in $label ($lines lines scanned${known:+; known: $known})"
	fi
}

# guest_kernel_log OUT DEST: DEST = the kernel log dumped into OUT (the
# "dmesg | " lines between the markers, prefix removed). Prints what is
# wrong and returns 1 when the dump is not there in whole.
guest_kernel_log() {
	local out=$1 dest=$2 endl rc want got
	: > "$dest"
	if ! grep -qx '@@DMESG-BEGIN@@' "$out" 2>/dev/null; then
		echo "no @@DMESG-BEGIN@@ line in $out (the guest never dumped its kernel log)"; return 1
	fi
	awk '$0 == "@@DMESG-BEGIN@@" {on = 1; next} /^@@DMESG-END / {on = 0} on && sub(/^dmesg \| /, "")' "$out" > "$dest"
	endl=$(grep -m 1 '^@@DMESG-END ' "$out" || true)
	[ -n "$endl" ] || { echo "no @@DMESG-END line in $out (the dump was cut off)"; return 1; }
	rc=$(sed -n 's/^@@DMESG-END rc=\([0-9]*\) .*/\1/p' <<< "$endl")
	want=$(sed -n 's/^.* lines=\([0-9]*\)@@$/\1/p' <<< "$endl")
	got=$(wc -l < "$dest")
	[ "$rc" = 0 ] || { echo "dmesg exited ${rc:-?} in the guest ($endl)"; return 1; }
	if [ -z "$want" ] || [ "$want" != "$got" ]; then echo "the guest dumped ${want:-?} lines, $got arrived"; return 1; fi
	[ "$got" -gt 0 ] || { echo "dmesg printed nothing"; return 1; }
	return 0
}

# splat_console CONSOLE: CONSOLE without the dumped kernel log and the guest
# script's own lines (lib.sh's result lines and what they indent, which may
# quote anything), each replaced by an empty line to keep the numbering.
splat_console() {
	sed -E 's/^(dmesg \| |ok       |FAIL     |NOT-LIVE |run      |time     |    \| |summary: [0-9]).*$//' "$1"
}

guest_splats() {
	local out=$1 console=$2 dmesg why filtered blank="" nu ni nm not_judged=()
	offline_note=
	filtered=$(mktemp)
	case ${3:-} in
	--no-dump) echo "    | no kernel log dump in this boot: ${4:-}; its console is scanned alone" ;;
	--not-judged) not_judged=(--not-judged "${4:-}") ;;
	--blank-offline) blank=1 ;;
	esac
	if [ "${3:-}" != --no-dump ] && [ "${3:-}" != --not-judged ]; then
		dmesg=${out%.out}.dmesg
		[ "$dmesg" != "$out" ] || dmesg=$out.dmesg
		if why=$(guest_kernel_log "$out" "$dmesg"); then
			pass "the guest's kernel log dumped in whole ($(wc -l < "$dmesg") lines, $dmesg)"
			# A log that wrapped lost its first messages: a splat there would go unseen.
			expect_match "the dumped kernel log starts at boot (its 'Linux version' line)" '^(\[[ 0-9.]+\] )?Linux version ' "@$dmesg"
			if [ -n "$blank" ]; then
				# lines ending in each of offline_dumps, in its order
				read -r nu ni nm < <(awk -v m="$offline_dumps" 'BEGIN {n = split(m, a, "|")}
					{for (i = 1; i <= n; i++) if (length($0) >= length(a[i]) && substr($0, length($0) - length(a[i]) + 1) == a[i]) c[i]++}
					END {for (i = 1; i <= n; i++) printf "%d%s", c[i], (i < n ? " " : "\n")}' "$dmesg")
				if [ $((nu + ni + nm)) -gt 0 ]; then
					offline_note="memory offlining dumped $nu unmovable, $ni unisolated and $nm unmigrated pages ($({ grep -Eo '(migrating|failed to isolate) pfn [0-9a-f]+' "$dmesg" || true; } | awk '{print $NF}' | sort -u | wc -l) pfns), blanked for the scan"
					echo "    | $offline_note"
				fi
				blank_offline_dumps "$dmesg" > "$filtered"
			else
				cp "$dmesg" "$filtered"
			fi
			splat_scan "the guest's kernel log ($dmesg)" "$filtered"
		else
			fail "the guest's kernel log could not be read, so it cannot be scanned: $why"
		fi
	fi
	if [ -s "$console" ]; then
		splat_console "$console" > "$filtered.c"
		if [ -n "$blank" ]; then blank_offline_dumps "$filtered.c" > "$filtered"; else mv "$filtered.c" "$filtered"; fi
		splat_scan "the serial console ($console)" "$filtered" ${not_judged[@]+"${not_judged[@]}"}
	else
		fail "the serial console log $console is missing or empty"
	fi
	rm -f "$filtered" "$filtered.c"
}

# Three kernel messages that are no splats in a guest that offlines memory
# (stress-ng's memhotplug, the selftests' mem-on-off-test.sh): offline
# attempts that fail make the kernel dump the page they failed on: one in
# a block it cannot isolate (mm/page_isolation.c, "page dumped because:
# unmovable page"), one it could not take off the LRU to migrate
# (mm/memory_hotplug.c do_migrate_range(), after "failed to isolate pfn N":
# "page dumped because: isolation failed"; a slab page on our vanilla 6.12
# guest), or one that did not migrate (the same function, after "migrating
# pfn N failed ret:R": "page dumped because: migration failure"; on
# Debian's 6.12 as on ours, block-device pages whose buffers are in use).
# All three are printed only by memory offlining, in 6.1 and 6.12 alike.
# As exempt reports they would stay open for the next 400 lines and hide a
# real one (splat_scan), so guest_splats --blank-offline scans the logs
# with those lines blanked and reports how many there were.
offline_dumps='page dumped because: unmovable page|page dumped because: isolation failed|page dumped because: migration failure'
# blank_offline_dumps FILE: FILE with those lines blank (the numbering kept).
blank_offline_dumps() {
	awk -v m="$offline_dumps" 'BEGIN {n = split(m, a, "|"); for (i = 1; i <= n; i++) M[a[i]] = 1}
		{l = $0; sub(/\r$/, "", l); sub(/^(dmesg \| )?(<[0-9]+>)?(\[ *[0-9]+\.[0-9]+\] ?)?/, "", l); print (l in M ? "" : $0)}' "$1"
}
