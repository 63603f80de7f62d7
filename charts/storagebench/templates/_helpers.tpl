{{/* Names, labels and the image, shared by the templates. */}}

{{/* The chart name, or nameOverride. */}}
{{- define "storagebench.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name: fullnameOverride, or the release name when it contains the
chart name, or "<release>-<chart>". Object names append a suffix to it.
*/}}
{{- define "storagebench.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The manager's Deployment, ClusterRole, Roles and bindings. */}}
{{- define "storagebench.managerName" -}}
{{- printf "%s-manager" (include "storagebench.fullname" .) }}
{{- end }}

{{- define "storagebench.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "storagebench.managerName" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "storagebench.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels that select the manager pods; never change on upgrade. */}}
{{- define "storagebench.selectorLabels" -}}
app.kubernetes.io/name: {{ include "storagebench.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: manager
{{- end }}

{{/* Labels of every object. */}}
{{- define "storagebench.labels" -}}
helm.sh/chart: {{ include "storagebench.chart" . }}
app.kubernetes.io/name: {{ include "storagebench.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ include "storagebench.imageTag" . | replace "+" "_" | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/part-of: storagebench
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Annotations of every object (a "metadata.annotations" block, or nothing). */}}
{{- define "storagebench.annotations" -}}
{{- with .Values.commonAnnotations -}}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{- define "storagebench.imageTag" -}}
{{- .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The image of the manager and of the client pods. */}}
{{- define "storagebench.image" -}}
{{- $ref := printf "%s:%s" (required "image.repository is required" .Values.image.repository) (include "storagebench.imageTag" .) }}
{{- with .Values.image.digest }}
{{- $ref = printf "%s@%s" $ref . }}
{{- end }}
{{- $ref }}
{{- end }}

{{/* The client pods' defaults, as the JSON of --client-pod-defaults; empty when there are none. */}}
{{- define "storagebench.clientPodDefaults" -}}
{{- $d := dict }}
{{- with .Values.engine.resources }}{{ $_ := set $d "resources" . }}{{ end }}
{{- with .Values.engine.nodeSelector }}{{ $_ := set $d "nodeSelector" . }}{{ end }}
{{- with .Values.engine.tolerations }}{{ $_ := set $d "tolerations" . }}{{ end }}
{{- if $d }}{{ toJson $d }}{{ end }}
{{- end }}
