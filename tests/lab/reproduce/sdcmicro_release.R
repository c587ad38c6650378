# sdcMicro's microaggregation of one file, for tests/lab/reproduce/test_sdcmicro.py (docs/reproductions.md §13).
# Usage: Rscript sdcmicro_release.R in.csv out.csv method k measure trim [strata]
# in.csv holds the masked columns (and the strata column, last); out.csv gets sdcMicro's released values in the
# input's row order, full precision. Method "clara" writes instead the clusters sdcMicro's clustered methods start
# from (cluster::clara on the values as given, nc = k) and each cluster's medoid row (1-based).
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages(library(sdcMicro))
x <- read.csv(args[1], check.names = FALSE)
if (args[3] == "clara") {
  a <- cluster::clara(x, as.integer(args[4]))
  write.csv(data.frame(cluster = a$clustering, medoid = a$i.med[a$clustering]), args[2], row.names = FALSE)
} else {
  strata <- if (length(args) >= 7) args[7] else NULL
  variables <- setdiff(colnames(x), strata)
  r <- suppressMessages(microaggregation(x, variables = variables, aggr = as.integer(args[4]), method = args[3],
                                         measure = args[5], trim = as.numeric(args[6]), strata_variables = strata))
  write.csv(format(as.data.frame(r$mx), digits = 17), args[2], row.names = FALSE, quote = FALSE)
}
