package call

// Argv is commandLine, for the tests.
var Argv = commandLine
