{{/*
Name of every object of the release: the release name when it already says "agent" (agent-alice), else
agent-<release>. Kubernetes names stop at 63 characters.
*/}}
{{- define "agent.fullname" -}}
{{- if contains "agent" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "agent-%s" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "agent.selectorLabels" -}}
app.kubernetes.io/name: agent
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "agent.labels" -}}
{{ include "agent.selectorLabels" . }}
app.kubernetes.io/component: agent
app.kubernetes.io/part-of: risk-protection
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The agent's port: settings.PORT, 8080 by default. */}}
{{- define "agent.port" -}}
{{- .Values.settings.PORT | default 8080 | int -}}
{{- end -}}

{{/*
A setting as an environment variable's text: whole numbers without an exponent (YAML numbers reach templates as
float64, which would print 1e+06), booleans as true/false.
*/}}
{{- define "agent.envValue" -}}
{{- if and (kindIs "float64" .) (eq . (float64 (int64 .))) -}}
{{- int64 . | toString -}}
{{- else -}}
{{- toString . -}}
{{- end -}}
{{- end -}}

{{/* Whether the chart creates a Secret (a mnemonic, a status token or the owner's webhook given as a value). */}}
{{- define "agent.ownsSecret" -}}
{{- if or .Values.mnemonic.value (and .Values.statusToken .Values.statusToken.value) (and .Values.notifyWebhookUrl .Values.notifyWebhookUrl.value) -}}true{{- end -}}
{{- end -}}

{{- define "agent.claimName" -}}
{{- .Values.database.persistence.existingClaim | default (printf "%s-data" (include "agent.fullname" .)) -}}
{{- end -}}
