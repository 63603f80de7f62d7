// Command sbcluster holds the parts of hack/local-cluster.sh that want a real
// program rather than bash:
//
//	sbcluster pki --dir DIR --service-ip IP [--nodes NAME=IP,...]  the cluster's certificates and keys
//	sbcluster classes SPEC                         parse STORAGEBENCH_CLASSES
//	sbcluster harness --state DIR ...              blkio cap watcher, PV recycler and
//	                                               the in-cluster API proxy (one process)
//	sbcluster iotest ...                           4 KiB O_DIRECT random IO probe used by
//	                                               the smoke test (runs inside a pod)
//	sbcluster incluster                            API access from a pod via the Service
//	                                               address, and the pod's routes
//
// It is its own module with no dependencies outside the standard library, so
// it builds fast and stays out of the project's go.mod. The script builds it
// static (CGO_ENABLED=0) into the state folder.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sbcluster pki|classes|harness|iotest|incluster [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "pki":
		err = cmdPKI(os.Args[2:])
	case "classes":
		err = cmdClasses(os.Args[2:])
	case "harness":
		err = cmdHarness(os.Args[2:])
	case "iotest":
		err = cmdIOTest(os.Args[2:])
	case "incluster":
		err = cmdInCluster(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sbcluster %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
