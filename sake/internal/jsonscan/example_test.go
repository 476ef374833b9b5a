package jsonscan_test

import (
	"fmt"

	"github.com/sakemcp/sake-go/sake/internal/jsonscan"
)

func ExampleMembers() {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}`)
	var method string
	var id, params []byte
	err := jsonscan.Members(msg, func(key, value []byte) error {
		switch string(key) {
		case "method":
			m, err := jsonscan.Unquote(value)
			if err != nil {
				return fmt.Errorf("method: %w", err)
			}
			method = m
		case "id":
			id = value
		case "params":
			if jsonscan.Kind(value) != jsonscan.Object {
				return fmt.Errorf("params must be an object, not %v", jsonscan.Kind(value))
			}
			params = value
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("method=%s id=%s params=%s\n", method, id, params)

	err = jsonscan.Members([]byte(`{"id":1,}`), func(key, value []byte) error { return nil })
	fmt.Println(err)
	// Output:
	// method=tools/call id=7 params={"name":"echo"}
	// jsonscan: invalid character '}' looking for beginning of object key string at offset 8
}

func ExampleUnquote() {
	s, err := jsonscan.Unquote([]byte(`"caf\u00e9 \uD83D\uDE00\n"`))
	fmt.Printf("%q %v\n", s, err)
	// Output:
	// "café 😀\n" <nil>
}
