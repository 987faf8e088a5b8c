package report

// Golden is golden, for the external tests.
var Golden = golden
