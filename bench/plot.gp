# bench/plot.gp: draws bench/results.tsv (written by bench/run.sh) as
# docs/bench.png: median time and peak RSS of scan, reindex and check against
# the size of the base (entries), log-log.
#
#   gnuplot -e "results='bench/results.tsv'; out='docs/bench.png'; label='...'" bench/plot.gp
if (!exists("results")) results = "bench/results.tsv"
if (!exists("out")) out = "docs/bench.png"
if (!exists("label")) label = results

set terminal pngcairo size 1200,500 font "sans,10"
set output out
set datafile separator "\t"
set datafile commentschars "#"
set logscale xy
set grid
set key top left
set xlabel "entries in the base"
set format x "10^{%L}"

# The rows of command cmd, sorted by size, as a data source (the base with
# many sources has as many entries as 1000x100: it is left out).
rows(cmd) = sprintf("< awk -F'\t' '$5 == \"%s\" && $1 !~ /s33k$/' '%s' | sort -t'\t' -k3,3n", cmd, results)

set multiplot layout 1,2 title "dtk against the size of the base: ".label

set title "median wall time"
set ylabel "seconds"
plot rows("scan") using 3:7 with linespoints lw 2 pt 7 title "scan (libyaml floor)", \
     rows("reindex") using 3:7 with linespoints lw 2 pt 5 title "dtk reindex --stdout", \
     rows("check") using 3:7 with linespoints lw 2 pt 9 title "dtk check -q", \
     rows("plan") using 3:7 with linespoints lw 1 dt 2 pt 4 title "dtk crystallize --plan"

set title "peak RSS"
set ylabel "MiB"
plot rows("scan") using 3:10 with linespoints lw 2 pt 7 title "scan (libyaml floor)", \
     rows("reindex") using 3:10 with linespoints lw 2 pt 5 title "dtk reindex --stdout", \
     rows("check") using 3:10 with linespoints lw 2 pt 9 title "dtk check -q", \
     rows("plan") using 3:10 with linespoints lw 1 dt 2 pt 4 title "dtk crystallize --plan", \
     32 with lines dt 3 lc rgb "red" title "target: 32 MiB"

unset multiplot
