#!/usr/bin/python3
"""Debian's python3-kubernetes (22.6) against kapi: each of the resources issue 18 added created, read, listed,
replaced and deleted through the client's typed APIs, whose models refuse responses that lack what kube sends.
Prints one line per resource and exits non-zero on the first failure. Usage: python_resources.py KUBECONFIG
"""
import sys

from kubernetes import client, config

config.load_kube_config(sys.argv[1])
core = client.CoreV1Api()
meta = client.V1ObjectMeta
pod_template = client.V1PodTemplateSpec(
    metadata=meta(labels={"app": "py"}),
    spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox")], restart_policy="Never"))


def check(name, create, read, list_, replace, delete):
    created = create()
    assert created.metadata.name, created
    read_back = read()
    assert read_back.metadata.uid == created.metadata.uid, (created, read_back)
    names = [item.metadata.name for item in list_().items]
    assert created.metadata.name in names, names
    if replace:
        replaced = replace(read_back)
        assert int(replaced.metadata.resource_version) > int(read_back.metadata.resource_version)
    delete()
    print(name, "ok", flush=True)


ns = "default"
autoscaling = client.AutoscalingV1Api()
hpa = client.V1HorizontalPodAutoscaler(
    metadata=meta(name="py-hpa"),
    spec=client.V1HorizontalPodAutoscalerSpec(
        scale_target_ref=client.V1CrossVersionObjectReference(kind="Deployment", name="web", api_version="apps/v1"),
        max_replicas=3, target_cpu_utilization_percentage=50))


def replace_hpa(current):
    current.spec.max_replicas = 4
    return autoscaling.replace_namespaced_horizontal_pod_autoscaler("py-hpa", ns, current)


check("horizontalpodautoscalers.v1",
      lambda: autoscaling.create_namespaced_horizontal_pod_autoscaler(ns, hpa),
      lambda: autoscaling.read_namespaced_horizontal_pod_autoscaler("py-hpa", ns),
      lambda: autoscaling.list_namespaced_horizontal_pod_autoscaler(ns), replace_hpa,
      lambda: autoscaling.delete_namespaced_horizontal_pod_autoscaler("py-hpa", ns))

events = client.EventsV1Api()
event = client.EventsV1Event(
    metadata=meta(name="py-event"), event_time="2026-01-01T00:00:00.000000Z", reporting_controller="example.com/py",
    reporting_instance="py-1", action="Testing", reason="Tested", type="Normal",
    regarding=client.V1ObjectReference(kind="Pod", name="p", namespace=ns))
check("events.events.k8s.io", lambda: events.create_namespaced_event(ns, event),
      lambda: events.read_namespaced_event("py-event", ns), lambda: events.list_namespaced_event(ns), None,
      lambda: events.delete_namespaced_event("py-event", ns))

batch = client.BatchV1Api()
job = client.V1Job(metadata=meta(name="py-job"), spec=client.V1JobSpec(template=pod_template))
check("jobs", lambda: batch.create_namespaced_job(ns, job), lambda: batch.read_namespaced_job("py-job", ns),
      lambda: batch.list_namespaced_job(ns), None,
      lambda: batch.delete_namespaced_job("py-job", ns, propagation_policy="Background"))
cronjob = client.V1CronJob(
    metadata=meta(name="py-cron"),
    spec=client.V1CronJobSpec(schedule="*/5 * * * *",
                              job_template=client.V1JobTemplateSpec(spec=client.V1JobSpec(template=pod_template))))
check("cronjobs", lambda: batch.create_namespaced_cron_job(ns, cronjob),
      lambda: batch.read_namespaced_cron_job("py-cron", ns), lambda: batch.list_namespaced_cron_job(ns), None,
      lambda: batch.delete_namespaced_cron_job("py-cron", ns))

policy = client.PolicyV1Api()
pdb = client.V1PodDisruptionBudget(
    metadata=meta(name="py-pdb"),
    spec=client.V1PodDisruptionBudgetSpec(min_available=1, selector=client.V1LabelSelector(match_labels={"app": "py"})))
check("poddisruptionbudgets", lambda: policy.create_namespaced_pod_disruption_budget(ns, pdb),
      lambda: policy.read_namespaced_pod_disruption_budget("py-pdb", ns),
      lambda: policy.list_namespaced_pod_disruption_budget(ns), None,
      lambda: policy.delete_namespaced_pod_disruption_budget("py-pdb", ns))

networking = client.NetworkingV1Api()
ingress = client.V1Ingress(metadata=meta(name="py-ing"), spec=client.V1IngressSpec(rules=[client.V1IngressRule(
    host="py.example.com", http=client.V1HTTPIngressRuleValue(paths=[client.V1HTTPIngressPath(
        path="/", path_type="Prefix", backend=client.V1IngressBackend(service=client.V1IngressServiceBackend(
            name="web", port=client.V1ServiceBackendPort(number=80))))]))]))
check("ingresses", lambda: networking.create_namespaced_ingress(ns, ingress),
      lambda: networking.read_namespaced_ingress("py-ing", ns), lambda: networking.list_namespaced_ingress(ns), None,
      lambda: networking.delete_namespaced_ingress("py-ing", ns))
netpol = client.V1NetworkPolicy(metadata=meta(name="py-netpol"),
                                spec=client.V1NetworkPolicySpec(pod_selector=client.V1LabelSelector()))
check("networkpolicies", lambda: networking.create_namespaced_network_policy(ns, netpol),
      lambda: networking.read_namespaced_network_policy("py-netpol", ns),
      lambda: networking.list_namespaced_network_policy(ns), None,
      lambda: networking.delete_namespaced_network_policy("py-netpol", ns))

scheduling = client.SchedulingV1Api()
priority = client.V1PriorityClass(metadata=meta(name="py-priority"), value=1000)
check("priorityclasses", lambda: scheduling.create_priority_class(priority),
      lambda: scheduling.read_priority_class("py-priority"), lambda: scheduling.list_priority_class(), None,
      lambda: scheduling.delete_priority_class("py-priority"))

storage = client.StorageV1Api()
storage_class = client.V1StorageClass(metadata=meta(name="py-sc"), provisioner="example.com/py")
check("storageclasses", lambda: storage.create_storage_class(storage_class),
      lambda: storage.read_storage_class("py-sc"), lambda: storage.list_storage_class(), None,
      lambda: storage.delete_storage_class("py-sc"))

node = client.NodeV1Api()
runtime_class = client.V1RuntimeClass(metadata=meta(name="py-rc"), handler="runc")
check("runtimeclasses", lambda: node.create_runtime_class(runtime_class),
      lambda: node.read_runtime_class("py-rc"), lambda: node.list_runtime_class(), None,
      lambda: node.delete_runtime_class("py-rc"))

discovery = client.DiscoveryV1Api()
slice_ = client.V1EndpointSlice(metadata=meta(name="py-slice", labels={"kubernetes.io/service-name": "web"}),
                                address_type="IPv4", endpoints=[client.V1Endpoint(addresses=["10.1.2.3"])],
                                ports=[client.DiscoveryV1EndpointPort(name="http", port=80, protocol="TCP")])
check("endpointslices", lambda: discovery.create_namespaced_endpoint_slice(ns, slice_),
      lambda: discovery.read_namespaced_endpoint_slice("py-slice", ns),
      lambda: discovery.list_namespaced_endpoint_slice(ns), None,
      lambda: discovery.delete_namespaced_endpoint_slice("py-slice", ns))

limits = client.V1LimitRange(metadata=meta(name="py-limits"), spec=client.V1LimitRangeSpec(
    limits=[client.V1LimitRangeItem(type="Container", default={"cpu": "500m"})]))
check("limitranges", lambda: core.create_namespaced_limit_range(ns, limits),
      lambda: core.read_namespaced_limit_range("py-limits", ns), lambda: core.list_namespaced_limit_range(ns), None,
      lambda: core.delete_namespaced_limit_range("py-limits", ns))
quota = client.V1ResourceQuota(metadata=meta(name="py-quota"), spec=client.V1ResourceQuotaSpec(hard={"pods": "10"}))
check("resourcequotas", lambda: core.create_namespaced_resource_quota(ns, quota),
      lambda: core.read_namespaced_resource_quota("py-quota", ns), lambda: core.list_namespaced_resource_quota(ns),
      None, lambda: core.delete_namespaced_resource_quota("py-quota", ns))
claim = client.V1PersistentVolumeClaim(metadata=meta(name="py-claim"), spec=client.V1PersistentVolumeClaimSpec(
    access_modes=["ReadWriteOnce"], resources=client.V1ResourceRequirements(requests={"storage": "1Gi"})))
check("persistentvolumeclaims", lambda: core.create_namespaced_persistent_volume_claim(ns, claim),
      lambda: core.read_namespaced_persistent_volume_claim("py-claim", ns),
      lambda: core.list_namespaced_persistent_volume_claim(ns), None,
      lambda: core.delete_namespaced_persistent_volume_claim("py-claim", ns))
volume = client.V1PersistentVolume(metadata=meta(name="py-pv"), spec=client.V1PersistentVolumeSpec(
    capacity={"storage": "1Gi"}, access_modes=["ReadWriteOnce"],
    host_path=client.V1HostPathVolumeSource(path="/tmp/py-pv")))
check("persistentvolumes", lambda: core.create_persistent_volume(volume),
      lambda: core.read_persistent_volume("py-pv"), lambda: core.list_persistent_volume(), None,
      lambda: core.delete_persistent_volume("py-pv"))
template = client.V1PodTemplate(metadata=meta(name="py-template"), template=pod_template)
check("podtemplates", lambda: core.create_namespaced_pod_template(ns, template),
      lambda: core.read_namespaced_pod_template("py-template", ns), lambda: core.list_namespaced_pod_template(ns),
      None, lambda: core.delete_namespaced_pod_template("py-template", ns))
always = client.V1PodTemplateSpec(metadata=meta(labels={"app": "py-rc"}), spec=client.V1PodSpec(
    containers=[client.V1Container(name="c", image="busybox")]))
controller = client.V1ReplicationController(metadata=meta(name="py-rc"), spec=client.V1ReplicationControllerSpec(
    replicas=1, selector={"app": "py-rc"}, template=always))
check("replicationcontrollers", lambda: core.create_namespaced_replication_controller(ns, controller),
      lambda: core.read_namespaced_replication_controller("py-rc", ns),
      lambda: core.list_namespaced_replication_controller(ns), None,
      lambda: core.delete_namespaced_replication_controller("py-rc", ns))
statuses = core.list_component_status()
assert statuses.items, statuses
print("componentstatuses ok", flush=True)
