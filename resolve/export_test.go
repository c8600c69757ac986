package resolve

// Allows and Exposes are the server filters, for tests.
var Allows, Exposes = allows, exposes
