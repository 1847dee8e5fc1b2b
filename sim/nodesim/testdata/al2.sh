#!/bin/bash -xe
exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1
/etc/eks/bootstrap.sh 'restartsim' --apiserver-endpoint 'https://127.0.0.1:6443' --b64-cluster-ca 'Y2E=' \
--dns-cluster-ip '10.96.0.10' \
--use-max-pods false \
--kubelet-extra-args '--node-labels="karpenter.sh/capacity-type=spot,karpenter.sh/nodepool=batch" --register-with-taints="karpenter.sh/unregistered:NoExecute" --max-pods=58'
