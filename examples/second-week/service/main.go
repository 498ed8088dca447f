// Command service stands in for the service lookup asks, so that you can
// try lookup in a host with no network and no account: it answers
// GET /lookup?q=QUERY on 127.0.0.1 with a line about the query, a piece at
// a time, so that a host shows lookup's progress. A request must carry the
// key the service was started with, MY_SERVER_API_KEY, as lookup sends it
// ("Authorization: Bearer KEY"); any other gets 401, as a real service
// would answer. Once it listens it prints its address on stdout, the
// MY_SERVER_API_URL to give the server.
//
//	MY_SERVER_API_KEY=sk-not-a-real-key go run ./examples/second-week/service
package main

import (
	"crypto/subtle"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"
)

// pause is how long the service waits between the pieces of an answer.
const pause = 500 * time.Millisecond

func main() {
	addr := flag.String("addr", "127.0.0.1:8089", "the address to listen on")
	flag.Parse()
	key := os.Getenv("MY_SERVER_API_KEY")
	if key == "" {
		log.Fatal("set MY_SERVER_API_KEY: the key this service takes, and the one to give the server")
	}
	listener, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/lookup\n", listener.Addr())
	log.Fatal(http.Serve(listener, handler(key, pause)))
}

// handler answers a lookup that carries key with its pieces, pause apart,
// and stops when the request is cut (the host cancelled the call).
func handler(key string, pause time.Duration) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /lookup", func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+key)) != 1 {
			http.Error(w, "this key is not known here", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		for i, piece := range answer(r.URL.Query().Get("q")) {
			if i > 0 {
				select {
				case <-time.After(pause):
				case <-r.Context().Done():
					return
				}
			}
			fmt.Fprint(w, piece)
			w.(http.Flusher).Flush()
		}
	})
	return mux
}

// answer is what the service says of query, in the pieces it sends.
func answer(query string) []string {
	return []string{query, ": looked up ", "in the local service, ", "which has no data but this line.\n"}
}
