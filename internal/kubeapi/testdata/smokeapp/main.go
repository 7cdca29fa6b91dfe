// Command smokeapp is the image of kubeapi's cluster smoke test: "serve"
// answers /readyz on :8080 and, on SIGTERM, logs it and exits 0 after
// 1 s; "print N" prints N lines and exits 0.
package main

import (
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == "print" {
		n, _ := strconv.Atoi(os.Args[2])
		for i := range n {
			fmt.Printf("line %d\n", i)
			time.Sleep(100 * time.Millisecond)
		}
		return
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	http.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	go http.ListenAndServe(":8080", nil)
	fmt.Println("up")
	<-sigs
	fmt.Println("SIGTERM")
	time.Sleep(time.Second)
	fmt.Println("bye")
}
