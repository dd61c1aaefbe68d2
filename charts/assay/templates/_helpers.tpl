{{/* The operator's name: fixed, so docs, `kubectl auth can-i --as=...:assay-operator` and the runner
     NetworkPolicy read the same everywhere; one operator per namespace. */}}
{{- define "assay.name" -}}assay-operator{{- end -}}

{{- define "assay.labels" -}}
app.kubernetes.io/name: assay
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "assay.selectorLabels" -}}
app.kubernetes.io/name: assay
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{/* The namespaces that get namespaced objects (Roles, runner NetworkPolicies) as a JSON list:
     watchNamespaces, else the release namespace (also in all-namespaces mode, where RBAC is cluster-wide). */}}
{{- define "assay.namespaces" -}}
{{- if and .Values.watchAllNamespaces .Values.watchNamespaces -}}
{{- fail "watchAllNamespaces and watchNamespaces exclude each other: set one" -}}
{{- end -}}
{{- toJson (.Values.watchNamespaces | default (list .Release.Namespace)) -}}
{{- end -}}

{{/* One ClusterRole instead of a Role per namespace: asked for, or needed to watch every namespace. */}}
{{- define "assay.clusterWide" -}}
{{- if or .Values.rbac.clusterWide .Values.watchAllNamespaces -}}true{{- end -}}
{{- end -}}

{{/* repository@digest, else repository:tag (the chart's appVersion when the tag is empty). */}}
{{- define "assay.image" -}}
{{- if .image.digest -}}
{{- printf "%s@%s" .image.repository .image.digest -}}
{{- else -}}
{{- printf "%s:%s" .image.repository (.image.tag | default .appVersion) -}}
{{- end -}}
{{- end -}}

{{/* The operator's RBAC rules, generated from assay_operator.rbac (scripts/gen_chart_files.py). */}}
{{- define "assay.rules" -}}
{{ .Files.Get "files/operator-rules.yaml" }}
{{- end -}}

{{/* The default MLflow URI with the credential the runner logs with. MLflow holds every answer key (traces,
     result.json, report.html), so a server should refuse anonymous calls and the runner then needs a
     credential: an http(s) URI without one is refused unless the install says it means it. */}}
{{- define "assay.mlflowUri" -}}
{{- $uri := .Values.defaults.mlflowTrackingUri -}}
{{- if and (regexMatch "^https?://" $uri) (not .Values.defaults.mlflowTokenSecret) (not .Values.defaults.mlflowAnonymous) -}}
{{- fail "defaults.mlflowTrackingUri names an MLflow server but defaults.mlflowTokenSecret is empty: MLflow holds every answer key, so run it with authentication and give the runner's credential Secret (docs/operating.md, MLflow with authentication), or set defaults.mlflowAnonymous=true" -}}
{{- end -}}
{{- $uri -}}
{{- end -}}
