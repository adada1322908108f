package natsjs

// StoredBy is storedBy, for the tests of package natsjs_test.
var StoredBy = (*Conn).storedBy
