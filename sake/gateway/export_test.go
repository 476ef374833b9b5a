package gateway

// ChildEnvForTest is childEnv, for the tests of the external package.
var ChildEnvForTest = childEnv
