package usertokens

import (
	"crypto/rand"
	"fmt"
)

// MaxSealBytes bounds what Seal takes: 64 KiB.
const MaxSealBytes = 64 << 10

// sealedAAD binds data sealed by Seal to what the caller names, apart
// from the tokens the vault seals (their additional data starts
// otherwise): neither opens as the other.
func sealedAAD(bound []byte) []byte {
	return append([]byte("sake-sealed\x00"), bound...)
}

// Seal encrypts plain with the vault's sealing key (AES-GCM), bound to
// bound: only Open with the same bound opens it. For a secret other than
// a token that must leave the program (the gateway's sign-ins in progress,
// kept in a database that replicas share). plain is at most MaxSealBytes.
func (v *Vault) Seal(plain, bound []byte) ([]byte, error) {
	if len(plain) > MaxSealBytes {
		return nil, fmt.Errorf("usertokens: Seal takes at most %d bytes, not %d", MaxSealBytes, len(plain))
	}
	aead := v.aeads[0]
	out := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(plain)+aead.Overhead())
	out[0] = sealVersion
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, err
	}
	return aead.Seal(out, out[1:1+aead.NonceSize()], plain, sealedAAD(bound)), nil
}

// Open decrypts what Seal sealed with the same bound, with any of the
// vault's keys. Data sealed with another key or bound, or changed, is
// refused with ErrUnreadable.
func (v *Vault) Open(sealed, bound []byte) ([]byte, error) {
	if len(sealed) < 1 || sealed[0] != sealVersion {
		return nil, fmt.Errorf("%w (unknown format)", ErrUnreadable)
	}
	ad := sealedAAD(bound)
	for _, aead := range v.aeads {
		n := aead.NonceSize()
		if len(sealed) < 1+n+aead.Overhead() {
			continue
		}
		if plain, err := aead.Open(nil, sealed[1:1+n], sealed[1+n:], ad); err == nil {
			return plain, nil
		}
	}
	return nil, ErrUnreadable
}
