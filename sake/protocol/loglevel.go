package protocol

// LogLevel is a syslog severity used by notifications/message.
type LogLevel string

// The eight levels, from least to most severe.
const (
	LevelDebug     LogLevel = "debug"
	LevelInfo      LogLevel = "info"
	LevelNotice    LogLevel = "notice"
	LevelWarning   LogLevel = "warning"
	LevelError     LogLevel = "error"
	LevelCritical  LogLevel = "critical"
	LevelAlert     LogLevel = "alert"
	LevelEmergency LogLevel = "emergency"
)

// Severity returns 1..8 for a known level and 0 otherwise.
func (l LogLevel) Severity() int {
	switch l {
	case LevelDebug:
		return 1
	case LevelInfo:
		return 2
	case LevelNotice:
		return 3
	case LevelWarning:
		return 4
	case LevelError:
		return 5
	case LevelCritical:
		return 6
	case LevelAlert:
		return 7
	case LevelEmergency:
		return 8
	}
	return 0
}
