package sse_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"aimdesk/app/sse"
)

func ExampleReader() {
	stream := "retry: 3000\n\n" +
		": keep-alive\n\n" +
		"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\n" +
		"data:  \"result\":{}}\n\n" +
		"event: done\r\ndata: bye\r\n\r\n"
	rd := sse.NewReader(strings.NewReader(stream), 0)
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("id=%q type=%s retry=%v data=%s\n", ev.ID, ev.Type, ev.Retry, ev.Data)
	}
	fmt.Printf("Last-Event-ID: %s\n", rd.LastEventID())
	// Output:
	// id="1" type=message retry=3s data={"jsonrpc":"2.0","id":7,
	//  "result":{}}
	// id="1" type=done retry=0s data=bye
	// Last-Event-ID: 1
}

func ExampleWriter() {
	var out bytes.Buffer // an http.ResponseWriter in a server
	w := sse.NewWriter(&out)
	_ = w.WriteEvent("1", "", []byte(`{"jsonrpc":"2.0","id":7,"result":{}}`))
	_ = w.WriteComment(" keep-alive")
	_ = w.WriteEvent("2", "update", []byte("two\nlines"))
	fmt.Print(out.String())
	// Output:
	// id: 1
	// data: {"jsonrpc":"2.0","id":7,"result":{}}
	//
	// : keep-alive
	// id: 2
	// event: update
	// data: two
	// data: lines
	//
}
