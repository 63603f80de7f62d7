package main

import (
	"context"
	"io"
	"log"
	"net"
	"sync"
	"time"
)

// runAPIProxy lets pods reach the apiserver without kube-proxy. Pods get the
// kubernetes Service's ClusterIP as KUBERNETES_SERVICE_HOST; `up` puts that
// address on the CNI bridge and gives pods a /32 route to it, and this proxy
// forwards its port 443 to the apiserver on 127.0.0.1. TLS passes through
// untouched (the apiserver certificate carries the ClusterIP as a SAN). Only
// host-local traffic: the address lives on our bridge, pods have no default
// route.
func runAPIProxy(ctx context.Context, listen, target string) {
	var ln net.Listener
	for {
		var err error
		ln, err = (&net.ListenConfig{}).Listen(ctx, "tcp", listen)
		if err == nil {
			break
		}
		log.Printf("API proxy cannot listen yet addr=%s err=%v", listen, err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
	log.Printf("API proxy listening addr=%s target=%s", listen, target)
	go func() { <-ctx.Done(); ln.Close() }()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			log.Printf("API proxy accept failed err=%v", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		go proxyConn(c, target)
	}
}

func proxyConn(c net.Conn, target string) {
	defer c.Close()
	u, err := net.DialTimeout("tcp", target, 5*time.Second)
	if err != nil {
		log.Printf("API proxy dial failed target=%s err=%v", target, err)
		return
	}
	defer u.Close()
	var wg sync.WaitGroup
	wg.Add(2)
	pipe := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	}
	go pipe(u, c)
	go pipe(c, u)
	wg.Wait()
}
