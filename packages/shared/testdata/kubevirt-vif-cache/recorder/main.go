// vif-cache-recorder writes the test vectors of packages/shared/src/kubevirt/vif-cache.ts with KubeVirt's own
// types and writer, so the TypeScript codec is checked against Go's encoder, not against our reading of it.
// It is built inside an export of KubeVirt's tree (see ../README.md); CI never builds or runs it.
//
//	vif-cache-recorder OUT_DIR
//
// OUT_DIR/<vector>.gojson: one DHCPConfig each, written by KubeVirt's cache package (cache.WriteDHCPInterfaceCache,
// the call virt-handler's bridge phase 1 makes). OUT_DIR/decode-cases.json: inputs fed to the reader's decoding
// (json.Unmarshal into a *cache.DHCPConfig held in an interface, as the cache package reads), each with Go's
// verdict and, when accepted, the value marshaled again.
package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/vishvananda/netlink"

	dutils "kubevirt.io/kubevirt/pkg/ephemeral-disk-utils"
	"kubevirt.io/kubevirt/pkg/network/cache"
	kfs "kubevirt.io/kubevirt/pkg/os/fs"
)

// outDirCreator puts the cache KubeVirt would open under /proc/<pid>/root into the output folder instead.
type outDirCreator struct{ dir string }

func (c outDirCreator) New(string) *cache.Cache { return cache.NewCustomCache(c.dir, kfs.New()) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func addr(cidr string) netlink.Addr { return *must(netlink.ParseAddr(cidr)) }

func cidrNet(s string) *net.IPNet {
	_, n, err := net.ParseCIDR(s)
	if err != nil {
		panic(err)
	}
	return n
}

func mac(s string) net.HardwareAddr { return must(net.ParseMAC(s)) }

// Routes as discoverbridge.go builds them: Dst nil for the default route, Gw from ParseIP (nil when on-link).
func route(dst, gw string) netlink.Route {
	r := netlink.Route{Gw: net.ParseIP(gw)}
	if dst != "" {
		r.Dst = cidrNet(dst)
	}
	return r
}

func vectors() map[string]cache.DHCPConfig {
	withRoutes := []netlink.Route{
		route("", "10.244.7.1"),
		route("10.99.0.0/16", "10.244.7.254"),
		route("192.168.50.0/24", ""),
	}
	odd := []netlink.Route{
		route("0.0.0.0/0", "10.0.0.254"),
		route("10.1.2.3/32", "10.0.0.254"),
		route("172.16.0.0/12", ""),
	}
	phase2Routes := []netlink.Route{route("", "10.244.7.1")}
	return map[string]cache.DHCPConfig{
		"ipv4-mac-gateway": {
			IP: addr("10.244.7.7/24"), MAC: mac("0a:58:0a:f4:07:07"), Gateway: net.ParseIP("10.244.7.1"),
		},
		"ipv4-routes": {
			IP: addr("10.244.7.7/24"), MAC: mac("02:aa:bb:cc:dd:ee"), Gateway: net.ParseIP("10.244.7.1"),
			Routes: &withRoutes,
		},
		"ipam-disabled": {IPAMDisabled: true},
		"no-ipv4-named": {Name: "pod16477688c0e"},
		"ipv4-prefix-32-odd-routes": {
			IP: addr("10.0.0.1/32"), MAC: mac("02:00:00:00:00:01"), Gateway: net.ParseIP("10.0.0.254"), Routes: &odd,
		},
		"phase2-filled": {
			Name: "eth0", IP: addr("10.244.7.7/24"), IPv6: addr("fd10:244::7/64"), MAC: mac("0a:58:0a:f4:07:07"),
			AdvertisingIPAddr: addr("169.254.75.10/32").IP, AdvertisingIPv6Addr: net.ParseIP("fe80::1"),
			Routes: &phase2Routes, Mtu: 1400, Gateway: net.ParseIP("10.244.7.1"), Subdomain: "my-sub",
		},
	}
}

type decodeCase struct {
	Name      string `json:"name"`
	Input     string `json:"input"`
	GoAccepts bool   `json:"goAccepts"`
	GoError   string `json:"goError,omitempty"`
	// The accepted value marshaled again as the cache package writes it.
	GoRemarshaled string `json:"goRemarshaled,omitempty"`
}

func decodeInputs() [][2]string {
	ok4 := `"IP":"10.244.7.7","Mask":"////AA=="`
	return [][2]string{
		{"empty-object", `{}`},
		{"nulls-everywhere", `{"Name":null,"IP":null,"IPv6":null,"MAC":null,"AdvertisingIPAddr":null,"Routes":null,"Mtu":null,"IPAMDisabled":null,"Gateway":null,"Subdomain":null}`},
		{"top-level-null", `null`},
		{"top-level-array", `[]`},
		{"top-level-string", `"x"`},
		{"truncated", `{"Name":"eth0","IP":{`},
		{"not-json", `Name: eth0`},
		{"trailing-garbage", `{} x`},
		{"unknown-fields", `{"Extra":1,"IP":{` + ok4 + `,"Extra":[1]}}`},
		{"lowercase-keys", `{"name":"eth0","mtu":1400,"ipamdisabled":false,"ip":{"ip":"10.244.7.7","mask":"////AA=="},"mac":"ClgK9AcH","gateway":"10.244.7.1","subdomain":"s"}`},
		{"duplicate-key-last-wins", `{"Mtu":1,"Mtu":1500}`},
		{"exact-and-folded-key", `{"Name":"a","name":"b"}`},
		{"ipv4-mapped-ipv6-text", `{"IP":{"IP":"::ffff:10.244.7.7","Mask":"////AA=="},"Gateway":"::ffff:10.244.7.1"}`},
		{"ipv4-with-16-byte-mask", `{"IP":{"IP":"10.244.7.7","Mask":"/////////////////////w=="}}`},
		{"ip-without-mask", `{"IP":{"IP":"10.244.7.7"}}`},
		{"mask-without-ip", `{"IP":{"Mask":"////AA=="}}`},
		{"ip-empty-string", `{"IP":{"IP":"","Mask":null}}`},
		{"ip-nil-text", `{"IP":{"IP":"<nil>","Mask":"////AA=="}}`},
		{"ip-bad-octet", `{"IP":{"IP":"10.244.7.300","Mask":"////AA=="}}`},
		{"ip-number", `{"IP":{"IP":10,"Mask":"////AA=="}}`},
		{"mask-not-base64", `{"IP":{"IP":"10.244.7.7","Mask":"////AA="}}`},
		{"mask-not-contiguous", `{"IP":{"IP":"10.244.7.7","Mask":"/wD/AA=="}}`},
		{"mask-ipv4-on-ipv6", `{"IPv6":{"IP":"fd10::7","Mask":"////AA=="}}`},
		{"mask-wrong-length", `{"IP":{"IP":"10.244.7.7","Mask":"//8="}}`},
		{"addr-flags-string", `{"IP":{` + ok4 + `,"Flags":"x"}}`},
		{"addr-peer-and-broadcast", `{"IP":{` + ok4 + `,"Peer":{"IP":"10.244.7.1","Mask":"/////w=="},"Broadcast":"10.244.7.255","Label":"eth0","Scope":0}}`},
		{"mac-empty-string", `{"MAC":""}`},
		{"mac-not-base64", `{"MAC":"0a:58:0a:f4:07:07"}`},
		{"mac-wrong-length", `{"MAC":"ClgK9Ac="}`},
		{"mac-array", `{"MAC":[10,88,10,244,7,7]}`},
		{"mtu-string", `{"Mtu":"1400"}`},
		{"mtu-negative", `{"Mtu":-1}`},
		{"mtu-over-range", `{"Mtu":65536}`},
		{"mtu-fraction", `{"Mtu":1400.5}`},
		{"mtu-exponent", `{"Mtu":1e3}`},
		{"mtu-minus-zero", `{"Mtu":-0}`},
		{"ipam-string", `{"IPAMDisabled":"true"}`},
		{"name-number", `{"Name":5}`},
		{"gateway-bad", `{"Gateway":"10.0.0"}`},
		{"gateway-ipv6", `{"Gateway":"fd10::1"}`},
		{"routes-object", `{"Routes":{}}`},
		{"routes-empty-array", `{"Routes":[]}`},
		{"routes-null-element", `{"Routes":[null]}`},
		{"route-dst-bad-ip", `{"Routes":[{"Dst":{"IP":"x","Mask":"////AA=="}}]}`},
		{"route-gw-number", `{"Routes":[{"Gw":1}]}`},
		{"route-newdst-object", `{"Routes":[{"NewDst":{}}]}`},
		{"route-scope-over-range", `{"Routes":[{"Scope":256}]}`},
		{"route-scope-link", `{"Routes":[{"Scope":253,"Dst":{"IP":"10.0.0.0","Mask":"/wAAAA=="}}]}`},
		{"route-multipath", `{"Routes":[{"MultiPath":[{"LinkIndex":2,"Gw":"10.0.0.1"}]}]}`},
		{"route-dst-ipv6", `{"Routes":[{"Dst":{"IP":"fd10::","Mask":"//////////8AAAAAAAAAAA=="},"Gw":"fd10::1"}]}`},
		{"string-escapes", `{"Name":"a<b>&c\u2028\u2029\u0001\b\f\n\r\t\"\\\/\u00e9\ud83d\ude00\u007f","Subdomain":"\ud800x"}`},
		{"int-minus-zero", `{"IP":{` + ok4 + `,"Flags":-0}}`},
		{"int-overflow", `{"Routes":[{"Priority":9223372036854775808}]}`},
		{"int-min", `{"Routes":[{"Priority":-9223372036854775808}]}`},
		{"mplsdst-number", `{"Routes":[{"MPLSDst":5}]}`},
		{"multipath-bad-gw", `{"Routes":[{"MultiPath":[{"Gw":"x"}]}]}`},
		{"mask-null-with-ip", `{"IP":{"IP":"10.244.7.7","Mask":null}}`},
		{"whitespace-around", " \n\t{}\r\n "},
		{"byte-order-mark", "\ufeff{}"},
		{"mac-8-bytes", `{"MAC":"AAECAwQFBgc="}`},
		{"mac-base64-newline", `{"MAC":"ClgK\n9AcH"}`},
		{"bool-null-then-true", `{"IPAMDisabled":null,"IPAMDisabled":true}`},
		{"advertising-ipv6-v4mapped", `{"AdvertisingIPv6Addr":"::ffff:169.254.75.10"}`},
	}
}

func decodeCases() []decodeCase {
	var out []decodeCase
	for _, in := range decodeInputs() {
		// As cache.readFromCachedFile: Unmarshal into a pointer to an interface holding *DHCPConfig.
		cfg := &cache.DHCPConfig{}
		var obj interface{} = cfg
		c := decodeCase{Name: in[0], Input: in[1]}
		if err := json.Unmarshal([]byte(in[1]), &obj); err != nil {
			c.GoError = err.Error()
		} else {
			c.GoAccepts = true
			var back interface{} = cfg
			c.GoRemarshaled = string(must(json.MarshalIndent(&back, "", "  ")))
		}
		out = append(out, c)
	}
	return out
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: vif-cache-recorder OUT_DIR")
		os.Exit(2)
	}
	out := os.Args[1]
	dutils.MockDefaultOwnershipManager() // no chown to the qemu user: the files are test data
	for name, cfg := range vectors() {
		cfg := cfg
		// The cache names the file vif-cache-<iface>.json; the vector's name stands in for the interface.
		if err := cache.WriteDHCPInterfaceCache(outDirCreator{out}, "self", name, &cfg); err != nil {
			panic(err)
		}
		from := filepath.Join(out, "vif-cache-"+name+".json")
		if err := os.Rename(from, filepath.Join(out, name+".gojson")); err != nil {
			panic(err)
		}
	}
	cases := must(json.MarshalIndent(decodeCases(), "", "  "))
	if err := os.WriteFile(filepath.Join(out, "decode-cases.json"), append(cases, '\n'), 0o644); err != nil {
		panic(err)
	}
	fmt.Println("wrote", out)
}
