package nodesim

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Kubelet is what a node's user data tells its kubelet: the labels and taints it registers with and,
// when set, its --max-pods.
type Kubelet struct {
	Labels  map[string]string
	Taints  []corev1.Taint
	MaxPods int32 // 0: the instance type's
}

// ParseUserData reads the kubelet settings from an instance's base64 user data: an AL2023 MIME
// multi-part document whose application/node.eks.aws part is a NodeConfig (its kubelet flags and
// config.maxPods), or an AL2 shell script (or a MIME part of one) calling /etc/eks/bootstrap.sh with
// --kubelet-extra-args. Empty user data is an empty Kubelet.
func ParseUserData(b64 string) (Kubelet, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return Kubelet{}, fmt.Errorf("user data is not base64: %w", err)
	}
	k := Kubelet{Labels: map[string]string{}}
	return k, k.parseDocument(raw)
}

func (k *Kubelet) parseDocument(raw []byte) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if msg, err := mail.ReadMessage(bytes.NewReader(raw)); err == nil && strings.HasPrefix(msg.Header.Get("Content-Type"), "multipart/") {
		return k.parseMultipart(msg)
	}
	return k.parseScript(string(raw))
}

func (k *Kubelet) parseMultipart(msg *mail.Message) error {
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return fmt.Errorf("user data's Content-Type: %w", err)
	}
	if params["boundary"] == "" {
		return errors.New("user data's multipart Content-Type has no boundary")
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("user data's MIME parts: %w", err)
		}
		body, err := io.ReadAll(part)
		if err != nil {
			return fmt.Errorf("user data's MIME parts: %w", err)
		}
		ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		switch ct {
		case "application/node.eks.aws":
			err = k.parseNodeConfig(body)
		case "text/x-shellscript":
			err = k.parseScript(string(body))
		}
		if err != nil {
			return err
		}
	}
}

// nodeConfig is the part of nodeadm's NodeConfig (node.eks.aws/v1alpha1) the kubelet's
// registration depends on.
type nodeConfig struct {
	Kind string `json:"kind"`
	Spec struct {
		Kubelet struct {
			Config struct {
				MaxPods *int32 `json:"maxPods"`
				// RegisterWithTaints is where Karpenter puts a node's taints for nodeadm (its flags
				// carry only --node-labels).
				RegisterWithTaints []corev1.Taint `json:"registerWithTaints"`
			} `json:"config"`
			Flags []string `json:"flags"`
		} `json:"kubelet"`
	} `json:"spec"`
}

func (k *Kubelet) parseNodeConfig(body []byte) error {
	var nc nodeConfig
	if err := yaml.Unmarshal(body, &nc); err != nil {
		return fmt.Errorf("user data's NodeConfig: %w", err)
	}
	if nc.Kind != "NodeConfig" {
		return fmt.Errorf("user data's application/node.eks.aws part is a %q, not a NodeConfig", nc.Kind)
	}
	if p := nc.Spec.Kubelet.Config.MaxPods; p != nil {
		k.MaxPods = *p
	}
	for _, t := range nc.Spec.Kubelet.Config.RegisterWithTaints {
		if err := k.addTaint(t); err != nil {
			return err
		}
	}
	for _, f := range nc.Spec.Kubelet.Flags {
		words, err := shellWords(f)
		if err != nil {
			return fmt.Errorf("user data's kubelet flag %q: %w", f, err)
		}
		if err := k.applyFlags(words); err != nil {
			return err
		}
	}
	return nil
}

// parseScript finds bootstrap.sh's --kubelet-extra-args in a shell script and applies its flags.
func (k *Kubelet) parseScript(script string) error {
	sc := bufio.NewScanner(strings.NewReader(strings.ReplaceAll(script, "\\\n", " ")))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, "bootstrap.sh") {
			continue
		}
		words, err := shellWords(line)
		if err != nil {
			return fmt.Errorf("user data's bootstrap.sh line: %w", err)
		}
		for i, w := range words {
			arg, ok := flagValue(words, i, w, "--kubelet-extra-args")
			if !ok {
				continue
			}
			extra, err := shellWords(arg)
			if err != nil {
				return fmt.Errorf("user data's --kubelet-extra-args: %w", err)
			}
			if err := k.applyFlags(extra); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

// flagValue is the value of flag name at words[i], given as --name=value or as --name value.
func flagValue(words []string, i int, w, name string) (string, bool) {
	if v, ok := strings.CutPrefix(w, name+"="); ok {
		return v, true
	}
	if w == name && i+1 < len(words) {
		return words[i+1], true
	}
	return "", false
}

// applyFlags reads the registration flags among kubelet command-line words.
func (k *Kubelet) applyFlags(words []string) error {
	for i, w := range words {
		if v, ok := flagValue(words, i, w, "--node-labels"); ok {
			if err := k.addLabels(v); err != nil {
				return err
			}
		}
		if v, ok := flagValue(words, i, w, "--register-with-taints"); ok {
			if err := k.addTaints(v); err != nil {
				return err
			}
		}
		if v, ok := flagValue(words, i, w, "--max-pods"); ok {
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil || n <= 0 {
				return fmt.Errorf("user data's --max-pods %q is not a positive number", v)
			}
			k.MaxPods = int32(n)
		}
	}
	return nil
}

func (k *Kubelet) addLabels(v string) error {
	for _, kv := range strings.Split(v, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		key, val, ok := strings.Cut(kv, "=")
		if !ok || key == "" {
			return fmt.Errorf("user data's --node-labels: %q is not key=value", kv)
		}
		k.Labels[key] = val
	}
	return nil
}

// addTaints reads key[=value]:Effect items, as the kubelet's --register-with-taints takes them.
func (k *Kubelet) addTaints(v string) error {
	for _, item := range strings.Split(v, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		kv, effect, ok := strings.Cut(item, ":")
		key, val, _ := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("user data's --register-with-taints: %q is not key[=value]:effect", item)
		}
		if err := k.addTaint(corev1.Taint{Key: key, Value: val, Effect: corev1.TaintEffect(effect)}); err != nil {
			return err
		}
	}
	return nil
}

func (k *Kubelet) addTaint(t corev1.Taint) error {
	if e := t.Effect; t.Key == "" || (e != corev1.TaintEffectNoSchedule && e != corev1.TaintEffectPreferNoSchedule && e != corev1.TaintEffectNoExecute) {
		return fmt.Errorf("user data's taint %q: needs a key and an effect NoSchedule, PreferNoSchedule or NoExecute", t.ToString())
	}
	k.Taints = append(k.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	return nil
}

// shellWords splits s into words as a POSIX shell would for the quoting user data uses: blanks
// separate words, '...' is literal, "..." keeps blanks and honours \" and \\, and a backslash
// outside quotes escapes the next character. Expansions are left as written.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
			continue
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			n, err := doubleQuoted(s[i+1:], &cur)
			if err != nil {
				return nil, err
			}
			i += n
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		default:
			cur.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// doubleQuoted writes the inside of a "..." string starting at s (after the opening quote) and
// returns how many bytes it read, the closing quote included.
func doubleQuoted(s string, cur *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0:
			i++
			cur.WriteByte(s[i])
		default:
			cur.WriteByte(c)
		}
	}
	return 0, errors.New("unterminated double quote")
}
