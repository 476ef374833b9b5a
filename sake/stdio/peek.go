package stdio

import (
	"bytes"
	"encoding/json"
)

// The transport looks at a few members of each message before handing it
// to the dispatcher, to decide how to run it: id, method, whether there
// is a result or an error and, for notifications/cancelled,
// params.requestId. It reads them the way
// encoding/json (and so the dispatcher) does: keys match case-insensitively
// and the last of duplicate keys wins. The common message is read by a
// small scanner that allocates nothing; anything unusual (escapes in keys
// or in the method, malformed JSON) goes through encoding/json.

// msgKind says how the read loop runs a message.
type msgKind uint8

const (
	// kindInline is a notification, a response or garbage: quick, handled
	// before the next line is read.
	kindInline msgKind = iota
	// kindRequest is a request: handled on its own goroutine.
	kindRequest
	// kindInitialize is initialize: handled before the next line is read,
	// so the following messages see the session it creates.
	kindInitialize
	// kindCancel is notifications/cancelled: the request it names is
	// stopped, then it is handled inline.
	kindCancel
	// kindResponse is the client's answer to a request of the server
	// (legacy era): handled inline.
	kindResponse
)

// Methods the transport tells apart.
const (
	methodInitialize = "initialize"
	methodCancelled  = "notifications/cancelled"
	methodListen     = "subscriptions/listen"
)

// peeked is what the transport learns about a message.
type peeked struct {
	kind msgKind
	// id is the raw JSON id of a request or a response.
	id []byte
	// requestID is the raw JSON params.requestId of a cancellation, nil if
	// absent.
	requestID []byte
	// stream marks subscriptions/listen, a request that ends only when it
	// is cancelled.
	stream bool
}

// rawEnvelope holds the raw JSON values of the members peek reads.
type rawEnvelope struct {
	id, method, params []byte
	answer             bool // it has a result or an error
}

// peek classifies a message. It never fails: what it cannot read is
// kindInline, and the dispatcher answers it.
func peek(msg []byte) peeked {
	var env rawEnvelope
	st := eachMember(msg, func(k, v []byte) {
		switch {
		case equalFold(k, "id"):
			env.id = v
		case equalFold(k, "method"):
			env.method = v
		case equalFold(k, "params"):
			env.params = v
		case equalFold(k, "result") || equalFold(k, "error"):
			env.answer = true
		}
	})
	if st != scanOK {
		return peekSlow(msg)
	}
	var method []byte
	switch {
	case env.method == nil || string(env.method) == "null":
		return response(env.id, env.answer)
	case env.method[0] != '"':
		return peeked{kind: kindInline} // the dispatcher refuses it
	case bytes.IndexByte(env.method, '\\') >= 0:
		return peekSlow(msg)
	default:
		method = env.method[1 : len(env.method)-1]
	}
	return classify(method, env.id, env.params)
}

// peekSlow is peek through encoding/json.
func peekSlow(msg []byte) peeked {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(msg, &env) != nil {
		return peeked{kind: kindInline}
	}
	if env.Method == nil {
		return response(env.ID, env.Result != nil || env.Error != nil)
	}
	return classify([]byte(*env.Method), env.ID, env.Params)
}

// response classifies a message without a method.
func response(id []byte, answer bool) peeked {
	if id != nil && answer {
		return peeked{kind: kindResponse, id: id}
	}
	return peeked{kind: kindInline} // the dispatcher refuses it
}

// classify decides the kind of a message with a method.
func classify(method, id, params []byte) peeked {
	switch {
	case string(method) == methodInitialize:
		return peeked{kind: kindInitialize}
	case id == nil:
		if string(method) == methodCancelled {
			return peeked{kind: kindCancel, requestID: requestID(params)}
		}
		return peeked{kind: kindInline}
	case id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9'):
		return peeked{kind: kindRequest, id: id, stream: string(method) == methodListen}
	}
	return peeked{kind: kindInline} // a bad id: the dispatcher refuses it
}

// requestID returns the raw requestId member of a cancellation's params.
func requestID(params []byte) []byte {
	var id []byte
	switch eachMember(params, func(k, v []byte) {
		if equalFold(k, "requestId") {
			id = v
		}
	}) {
	case scanOK:
		return id
	case scanSlow:
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(params, &p) == nil {
			return p.RequestID
		}
	}
	return nil
}

// equalFold compares a key with a name as encoding/json does.
func equalFold(key []byte, name string) bool {
	if len(key) == len(name) && string(key) == name {
		return true
	}
	return bytes.EqualFold(key, []byte(name))
}

type scanStatus uint8

const (
	scanOK   scanStatus = iota
	scanBad             // not a JSON object
	scanSlow            // a key has escapes: let encoding/json read it
)

// eachMember calls fn with the key (without quotes) and the raw value of
// each member of the JSON object b, in order. It checks the object's
// structure, not the spelling of numbers and literals.
func eachMember(b []byte, fn func(key, val []byte)) scanStatus {
	s := scanner{b: b}
	s.space()
	if !s.eat('{') {
		return scanBad
	}
	s.space()
	if !s.eat('}') {
		for {
			s.space()
			if s.i >= len(b) || b[s.i] != '"' {
				return scanBad
			}
			ks, ke, esc, ok := s.str()
			if !ok {
				return scanBad
			}
			if esc {
				return scanSlow
			}
			s.space()
			if !s.eat(':') {
				return scanBad
			}
			s.space()
			vs := s.i
			if !s.value() {
				return scanBad
			}
			fn(b[ks:ke], b[vs:s.i])
			s.space()
			if s.eat(',') {
				continue
			}
			if s.eat('}') {
				break
			}
			return scanBad
		}
	}
	s.space()
	if s.i != len(b) {
		return scanBad
	}
	return scanOK
}

// scanner walks JSON text.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads the string at s.i, returning the bounds of its contents and
// whether they hold escapes. It does not check the contents: the
// dispatcher refuses a malformed string.
func (s *scanner) str() (start, end int, esc, ok bool) {
	s.i++ // the opening quote
	start = s.i
	for {
		q := bytes.IndexByte(s.b[s.i:], '"')
		if q < 0 {
			return 0, 0, false, false
		}
		bs := bytes.IndexByte(s.b[s.i:s.i+q], '\\')
		if bs < 0 {
			s.i += q + 1
			return start, s.i - 1, esc, true
		}
		esc = true
		s.i += bs + 2 // the backslash and the character it escapes
		if s.i > len(s.b) {
			return 0, 0, false, false
		}
	}
}

// value skips the value at s.i.
func (s *scanner) value() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		_, _, _, ok := s.str()
		return ok
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if _, _, _, ok := s.str(); !ok {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	case ',', '}', ']', ':':
		return false
	}
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return s.i > start
		}
		s.i++
	}
	return s.i > start
}
