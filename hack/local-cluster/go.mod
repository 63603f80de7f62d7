module github.com/storagebench/storagebench/hack/local-cluster

go 1.26.0
