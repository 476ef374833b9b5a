package protocol

// Reserved _meta keys.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// MetaComponentVersion is the _meta key of a component's version: in a
// list entry, the version listed; in a tools/call, prompts/get or
// resources/read request, the version asked for. The protocol defines no
// such field; the key uses this library's prefix (its GitHub organisation,
// reversed), which the protocol's _meta naming rules allow.
const MetaComponentVersion = "io.github.sakemcp/version"

// MetaComponentVersions is the _meta key, in the list entry of a component
// served in several versions, of every version served, highest first.
const MetaComponentVersions = "io.github.sakemcp/versions"
