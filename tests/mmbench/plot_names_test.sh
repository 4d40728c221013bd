#!/bin/bash
# compare --plot and file names (issue 41): no file name reaches gnuplot's
# script as code. A name with a newline followed by system("touch MARKER")
# once ended gnuplot's command and ran the next line:
#   - a result file named so: refused before anything is read or drawn (exit
#     2, one stderr line naming the file with its newline escaped, nothing
#     on stdout, no PNG), no marker;
#   - an OUT.png named so: drawn (that name never goes into the script), no
#     marker;
#   - names with a quote, backquotes, a gnuplot macro (@x) and a dollar
#     sign: drawn, nothing run;
#   - no temp file or directory of the plot is left in TMPDIR, and no temp
#     PNG beside OUT.png.
. "$(dirname "$0")/lib.sh"
setup
command -v gnuplot > /dev/null || { skip "compare --plot" "no gnuplot (make deps-bench)"; test_summary; exit 0; }

mkdir "$T/w" "$T/tmp"
cd "$T/w" || exit 1
export TMPDIR=$T/tmp
"$MMBENCH" fault --quick --reps 1 --size-mib 1 -o a.json > /dev/null
nl=$'\n'
evil_json="b${nl}system(\"touch MARKER_JSON\")${nl}#.json"
evil_png="p${nl}system(\"touch MARKER_PNG\")${nl}#.png"
cp a.json "$evil_json"

png_magic() { od -An -tx1 -N4 "$1" 2>/dev/null | tr -d ' \n'; }

run_cmd json "$MMBENCH" compare a.json "$evil_json" --plot out.png
expect_eq "result file with a newline: exit" 2 "$RC"
expect_lines "result file with a newline: stderr" 1 "@$T/json.err"
expect_match "result file with a newline: message names it, escaped" \
	"^mmbench compare: --plot: result file name 'b\\\\nsystem\\(\"touch MARKER_JSON\"\\)\\\\n#\\.json' has a control character" "@$T/json.err"
expect_lines "result file with a newline: stdout" 0 "@$T/json.out"
expect_absent "result file with a newline: no PNG" "$T/w/out.png"
expect_absent "result file with a newline: nothing ran" "$T/w/MARKER_JSON"
# the same file as baseline: refused as well
run_cmd json_a "$MMBENCH" compare "$evil_json" a.json --plot out.png
expect_eq "baseline file with a newline: exit" 2 "$RC"
expect_absent "baseline file with a newline: nothing ran" "$T/w/MARKER_JSON"
# without --plot no name goes anywhere near gnuplot: compare works
run_cmd json_noplot "$MMBENCH" compare a.json "$evil_json"
expect_eq "result file with a newline, no --plot: exit" 0 "$RC"

run_cmd png "$MMBENCH" compare a.json a.json --plot "$evil_png"
expect_eq "OUT.png with a newline: exit" 0 "$RC"
expect_eq "OUT.png with a newline: the PNG is there" 89504e47 "$(png_magic "$T/w/$evil_png")"
expect_absent "OUT.png with a newline: nothing ran" "$T/w/MARKER_PNG"
expect_absent "OUT.png with a newline: no stray file named by its first line" "$T/w/p"

odd="it's \`touch MARKER_BQ\` @x \$(touch MARKER_DOLLAR).json"
cp a.json "$odd"
run_cmd odd "$MMBENCH" compare a.json "$odd" --plot "odd '\`touch MARKER_BQ2\`'.png"
expect_eq "quote, backquotes, macro, \$(): exit" 0 "$RC"
expect_eq "quote, backquotes, macro, \$(): the PNG" 89504e47 "$(png_magic "$T/w/odd '\`touch MARKER_BQ2\`'.png")"
for m in MARKER_BQ MARKER_DOLLAR MARKER_BQ2; do
	expect_absent "quote, backquotes, macro, \$(): $m not made" "$T/w/$m"
done

expect_eq "no plot files left in TMPDIR" "" "$(ls -A "$T/tmp")"
expect_eq "no temp PNG left beside OUT.png" "" "$(cd "$T/w" && find . -name '*.png.*' | head -n 3)"
test_summary
