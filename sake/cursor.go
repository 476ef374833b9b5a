package sake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
)

// A cursor is base64url(kind || offset varint || first 16 bytes of
// HMAC-SHA256(secret, kind || offset)): opaque to clients, and any change
// to it fails verification.

const cursorMACSize = 16

func (s *Server) cursor(kind byte, offset int) string {
	var buf [1 + binary.MaxVarintLen64 + cursorMACSize]byte
	buf[0] = kind
	n := 1 + binary.PutUvarint(buf[1:], uint64(offset))
	mac := hmac.New(sha256.New, s.secret)
	mac.Write(buf[:n])
	n += copy(buf[n:], mac.Sum(nil)[:cursorMACSize])
	return base64.RawURLEncoding.EncodeToString(buf[:n])
}

// offset verifies a cursor for the list kind and returns its offset.
func (s *Server) offset(kind byte, cursor *string) (int, error) {
	if cursor == nil || *cursor == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(*cursor)
	if err != nil || len(raw) < 2+cursorMACSize || raw[0] != kind {
		return 0, InvalidParams("Invalid cursor")
	}
	body, sum := raw[:len(raw)-cursorMACSize], raw[len(raw)-cursorMACSize:]
	mac := hmac.New(sha256.New, s.secret)
	mac.Write(body)
	if !hmac.Equal(sum, mac.Sum(nil)[:cursorMACSize]) {
		return 0, InvalidParams("Invalid cursor")
	}
	off, n := binary.Uvarint(body[1:])
	if n <= 0 || n != len(body)-1 || off > 1<<31 {
		return 0, InvalidParams("Invalid cursor")
	}
	return int(off), nil
}
