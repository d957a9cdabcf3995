#!/usr/bin/python3
"""Debian's python3-kubernetes (22.6) applies server-side through its dynamic client: a ConfigMap created through
apply, a conflicting apply by another manager refused with 409, then forced. Prints one line per step and exits
non-zero on the first failure. Usage: python_apply.py KUBECONFIG
"""
import sys

from kubernetes import client, config, dynamic
from kubernetes.client.rest import ApiException

config.load_kube_config(sys.argv[1])
configmaps = dynamic.DynamicClient(client.ApiClient()).resources.get(api_version="v1", kind="ConfigMap")


def applied(data, manager, force=None):
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "py-applied"}, "data": data}
    return configmaps.server_side_apply(body=body, namespace="default", field_manager=manager, force_conflicts=force)


created = applied({"a": "1"}, "python")
entries = created.metadata.managedFields
assert [(e.manager, e.operation) for e in entries] == [("python", "Apply")], entries
print("created", created.metadata.name, flush=True)
try:
    applied({"a": "2"}, "python-other")
    sys.exit("a conflicting apply was accepted")
except ApiException as error:
    assert 'conflict with \\"python\\": .data.a' in error.body, error.body
    print("conflict", error.status, flush=True)
forced = applied({"a": "2"}, "python-other", force=True)
assert forced.data.a == "2", forced
print("forced", forced.metadata.name, flush=True)
configmaps.delete(name="py-applied", namespace="default")
