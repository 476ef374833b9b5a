package client

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"time"
)

// tooLargeError is a message longer than MaxMessageBytes: the stream is
// not broken, so it is not resumed (it would send the same message again).
type tooLargeError struct {
	what string
	max  int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("client: %s exceeds %d bytes (raise MaxMessageBytes)", e.what, e.max)
}

// sseReader reads the events of a text/event-stream body.
type sseReader struct {
	r   *bufio.Reader
	max int64
	// lastID is the id of the last event that had one; retry the
	// reconnection delay the server asked for.
	lastID string
	retry  time.Duration
}

func newSSEReader(r io.Reader, max int64) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 4096), max: max}
}

// next returns the data of the next event that has data (events with only
// an id, such as the priming event, just move lastID). It returns io.EOF
// when the stream ends.
func (s *sseReader) next() ([]byte, error) {
	var data []byte
	hasData := false
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && hasData {
				return data, nil
			}
			return nil, err
		}
		if len(line) == 0 { // end of an event
			if hasData {
				return data, nil
			}
			continue
		}
		if line[0] == ':' {
			continue // a comment (keep-alive)
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
			if int64(len(data)) > s.max {
				return nil, &tooLargeError{what: "an event of the server's stream", max: s.max}
			}
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.lastID = string(value)
			}
		case "retry":
			if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 {
				s.retry = time.Duration(n) * time.Millisecond
			}
		}
	}
}

// readLine reads one line without its end (LF, CRLF or CR), bounded.
func (s *sseReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		line = append(line, chunk...)
		if int64(len(line)) > s.max+64 {
			return nil, &tooLargeError{what: "an event of the server's stream", max: s.max}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(line) > 0 {
				return bytes.TrimRight(line, "\r\n"), nil
			}
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}
