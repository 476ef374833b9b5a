package gateway

// ChildEnvForTest is childEnv, for the tests of the external package.
var ChildEnvForTest = childEnv

// PublishedNameForTest, MountedNamespaceForTest and ShortHashForTest are
// the naming rules, for the tests of the external package.
var (
	PublishedNameForTest    = publishedName
	MountedNamespaceForTest = mountedNamespace
	ShortHashForTest        = shortHash
)
