package sake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"sort"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// round is the multi-round state of one modern request: the answers known
// so far (from the request state and this retry's inputResponses), values
// kept with Keep, and the questions asked during this run.
type round struct {
	answers map[string]json.RawMessage
	kept    map[string]json.RawMessage
	asked   map[string]protocol.InputRequest
	waiting []func(error) // Hooks.Input of the questions asked this round
}

// question records a question asked this round.
func (c *Context) question(key, method string, params []byte) {
	r := c.round()
	if r.asked == nil {
		r.asked = map[string]protocol.InputRequest{}
	}
	r.asked[key] = protocol.InputRequest{Method: method, Params: params}
	if h := c.srv.opts.hooks; h != nil && h.Input != nil {
		if done := h.Input(c.Context, Question{Method: method, Key: key}); done != nil {
			r.waiting = append(r.waiting, done)
		}
	}
}

// settle tells the Input hooks that the round's questions are settled.
func (r *round) settle(err error) {
	for _, done := range r.waiting {
		done(err)
	}
	r.waiting = nil
}

// statePayload is what a requestState carries, signed.
type statePayload struct {
	Owner   string                     `json:"o"`
	Method  string                     `json:"m"`
	Digest  string                     `json:"d"`
	Expires int64                      `json:"e"`
	Answers map[string]json.RawMessage `json:"a,omitempty"`
	Kept    map[string]json.RawMessage `json:"k,omitempty"`
	// Asked are the keys of the questions the state answers to: a retry's
	// inputResponses count only for them.
	Asked []string `json:"q,omitempty"`
	// Nonce makes the state single-use (ToolDef.SingleUseState).
	Nonce string `json:"n,omitempty"`
}

func (s *Server) now() time.Time {
	if s.opts.now != nil {
		return s.opts.now()
	}
	return time.Now()
}

func (c *Context) round() *round {
	if c.rnd == nil {
		c.rnd = &round{}
	}
	return c.rnd
}

// stateTTL is how long a requestState stays valid.
func (s *Server) stateTTL() time.Duration {
	return orDefault(s.opts.limits.RequestStateTTL, defaultRequestStateTTL)
}

// requestDigest identifies the original request a state belongs to: the
// method and the params that select what runs (name or uri and the
// arguments, canonicalised).
func requestDigest(req *Request) string {
	h := sha256.New()
	h.Write([]byte(req.Method))
	h.Write([]byte{0})
	h.Write([]byte(req.Params.Name))
	h.Write([]byte{0})
	h.Write([]byte(req.Params.URI))
	h.Write([]byte{0})
	if args := req.Params.Arguments; len(args) > 0 {
		var v any
		if json.Unmarshal(args, &v) == nil {
			canon, _ := json.Marshal(v)
			h.Write(canon)
		}
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

var errBadState = InvalidParams("Invalid requestState: it was altered, belongs to another request or caller, or has expired; start the request again without it")

// openRound verifies the request state and merges the retry's answers.
func (s *Server) openRound(req *Request) (*round, error) {
	p := req.Params
	r := &round{}
	var asked []string
	if p.RequestState != nil && *p.RequestState != "" {
		var st statePayload
		if err := s.verifyState(*p.RequestState, &st); err != nil {
			return nil, errBadState
		}
		if st.Owner != req.Identity.Owner() || st.Method != req.Method || st.Digest != requestDigest(req) ||
			s.now().Unix() > st.Expires {
			return nil, errBadState
		}
		if st.Nonce != "" {
			if err := s.usedStates.redeem(st.Nonce, st.Expires, s.now().Unix(), capOf(s.opts.limits.MaxSingleUseStates, defaultMaxSingleUseStates)); err != nil {
				return nil, err
			}
		}
		r.answers, r.kept, asked = st.Answers, st.Kept, st.Asked
	}
	if len(p.InputResponses) > 0 && string(p.InputResponses) != "null" {
		var answers map[string]json.RawMessage
		if err := json.Unmarshal(p.InputResponses, &answers); err != nil {
			return nil, InvalidParams("Invalid params: inputResponses must be an object of answers keyed as the inputRequests were")
		}
		// Only answers to the questions the state asked count; other keys
		// are ignored, never signed into the next state.
		for _, k := range asked {
			v, ok := answers[k]
			if !ok {
				continue
			}
			if r.answers == nil {
				r.answers = map[string]json.RawMessage{}
			}
			r.answers[k] = v
		}
	}
	return r, nil
}

// inputRequired turns the questions of a run into the interim result.
func (s *Server) inputRequired(req *Request, r *round) (any, error) {
	// Answers that were malformed are dropped so the question is asked again.
	answers := map[string]json.RawMessage{}
	for k, v := range r.answers {
		if _, again := r.asked[k]; !again {
			answers[k] = v
		}
	}
	st := statePayload{Owner: req.Identity.Owner(), Method: req.Method, Digest: requestDigest(req),
		Expires: s.now().Add(s.stateTTL()).Unix(), Answers: answers, Kept: r.kept}
	st.Asked = make([]string, 0, len(r.asked))
	for k := range r.asked {
		st.Asked = append(st.Asked, k)
	}
	sort.Strings(st.Asked)
	if req.singleUse {
		st.Nonce = newNonce()
	}
	state, err := s.signState(&st)
	if err != nil {
		return nil, err
	}
	return &inputRequiredResult{requests: r.asked, state: state}, nil
}

func (s *Server) signState(st *statePayload) (string, error) {
	body, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, s.secret)
	mac.Write([]byte("requestState\x00"))
	mac.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), nil
}

func (s *Server) verifyState(token string, st *statePayload) error {
	dot := -1
	for i := len(token) - 1; i >= 0; i-- {
		if token[i] == '.' {
			dot = i
			break
		}
	}
	if dot < 0 {
		return errors.New("no signature")
	}
	body, err1 := base64.RawURLEncoding.DecodeString(token[:dot])
	sum, err2 := base64.RawURLEncoding.DecodeString(token[dot+1:])
	if err1 != nil || err2 != nil {
		return errors.New("not base64")
	}
	mac := hmac.New(sha256.New, s.secret)
	mac.Write([]byte("requestState\x00"))
	mac.Write(body)
	if !hmac.Equal(sum, mac.Sum(nil)) {
		return errors.New("bad signature")
	}
	return json.Unmarshal(body, st)
}

// inputRequiredResult is the interim result of MRTR.
type inputRequiredResult struct {
	requests map[string]protocol.InputRequest
	state    string
}

func (r *inputRequiredResult) appendResult(dst []byte, w *resultWriter) ([]byte, error) {
	dst = append(dst, `{"inputRequests":{`...)
	keys := make([]string, 0, len(r.requests))
	for k := range r.requests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		dst = protocol.AppendKey(dst, k, i == 0)
		q := r.requests[k]
		dst = append(dst, `{"method":`...)
		dst = protocol.AppendString(dst, q.Method)
		if len(q.Params) > 0 {
			dst = append(dst, `,"params":`...)
			dst = append(dst, q.Params...)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `},"requestState":`...)
	dst = protocol.AppendString(dst, r.state)
	return w.tail(dst, false, nil, cacheNone, "input_required")
}

// finishRound decides what a modern MRTR-capable call answers: the
// interim result when the code stopped for input, the result otherwise.
func (s *Server) finishRound(req *Request, c *Context, res any, err error) (any, error) {
	if c.rnd != nil && c.rnd.waiting != nil {
		c.rnd.settle(nil)
	}
	if c.rnd != nil && len(c.rnd.asked) > 0 && (errors.Is(err, ErrInputRequired) || errors.Is(err, errMalformedAnswer)) {
		return s.inputRequired(req, c.rnd)
	}
	return res, err
}
