package voice

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/interceptor/pkg/nack"
	"github.com/pion/interceptor/pkg/report"
	"github.com/pion/interceptor/pkg/twcc"
	"github.com/pion/sdp/v3"
	"github.com/pion/webrtc/v4"
)

// What the SFU speaks. Audio is Opus; a screen is VP8, VP9 or H.264, whichever the sharing
// browser picks from the server's offer (in this order of preference): every browser decodes
// VP8 and H.264. Nothing is transcoded: packets go from one participant to the others as they
// came, under new SSRCs.
//
// RTCP: the server answers NACKs of forwarded video from a buffer of its recent packets, asks
// a screen's sender for a keyframe when a viewer loses one (PLI, throttled) or starts watching,
// and sends transport-wide congestion feedback (TWCC) on screens so the sender's bandwidth
// estimate can climb. Audio carries the level of each packet (RFC 6464), which tells who is
// speaking.

// Payload types of the codecs, as the server offers them.
const (
	ptOpus = 111
	ptVP8  = 96
	ptVP9  = 98
	ptH264 = 102
)

// nackBuffer is how many recent packets each forwarded screen keeps for retransmission (a
// power of two): about a second of a busy screen.
const nackBuffer = 256

// newAPI makes the pion API every session's PeerConnection is made with.
func newAPI(se webrtc.SettingEngine) (*webrtc.API, error) {
	m := &webrtc.MediaEngine{}
	videoFeedback := []webrtc.RTCPFeedback{
		{Type: "nack"}, {Type: "nack", Parameter: "pli"}, {Type: "ccm", Parameter: "fir"},
		{Type: webrtc.TypeRTCPFBTransportCC},
	}
	codecs := []struct {
		kind webrtc.RTPCodecType
		p    webrtc.RTPCodecParameters
	}{
		{webrtc.RTPCodecTypeAudio, webrtc.RTPCodecParameters{PayloadType: ptOpus, RTPCodecCapability: webrtc.RTPCodecCapability{
			MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2, SDPFmtpLine: "minptime=10;useinbandfec=1"}}},
		{webrtc.RTPCodecTypeVideo, webrtc.RTPCodecParameters{PayloadType: ptVP8, RTPCodecCapability: webrtc.RTPCodecCapability{
			MimeType: webrtc.MimeTypeVP8, ClockRate: 90000, RTCPFeedback: videoFeedback}}},
		{webrtc.RTPCodecTypeVideo, webrtc.RTPCodecParameters{PayloadType: ptVP9, RTPCodecCapability: webrtc.RTPCodecCapability{
			MimeType: webrtc.MimeTypeVP9, ClockRate: 90000, SDPFmtpLine: "profile-id=0", RTCPFeedback: videoFeedback}}},
		{webrtc.RTPCodecTypeVideo, webrtc.RTPCodecParameters{PayloadType: ptH264, RTPCodecCapability: webrtc.RTPCodecCapability{
			MimeType: webrtc.MimeTypeH264, ClockRate: 90000, RTCPFeedback: videoFeedback,
			SDPFmtpLine: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f"}}},
	}
	for _, c := range codecs {
		if err := m.RegisterCodec(c.p, c.kind); err != nil {
			return nil, err
		}
	}
	if err := m.RegisterHeaderExtension(webrtc.RTPHeaderExtensionCapability{URI: sdp.AudioLevelURI}, webrtc.RTPCodecTypeAudio); err != nil {
		return nil, err
	}
	if err := m.RegisterHeaderExtension(webrtc.RTPHeaderExtensionCapability{URI: sdp.TransportCCURI}, webrtc.RTPCodecTypeVideo); err != nil {
		return nil, err
	}
	ir := &interceptor.Registry{}
	gen, err := nack.NewGeneratorInterceptor()
	if err != nil {
		return nil, err
	}
	resp, err := nack.NewResponderInterceptor(nack.ResponderSize(nackBuffer))
	if err != nil {
		return nil, err
	}
	rr, err := report.NewReceiverInterceptor()
	if err != nil {
		return nil, err
	}
	sr, err := report.NewSenderInterceptor()
	if err != nil {
		return nil, err
	}
	tw, err := twcc.NewSenderInterceptor()
	if err != nil {
		return nil, err
	}
	ir.Add(gen)
	ir.Add(resp)
	ir.Add(rr)
	ir.Add(sr)
	ir.Add(tw)
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithInterceptorRegistry(ir), webrtc.WithSettingEngine(se)), nil
}

// ICE timing: the server is an ICE-lite agent (it answers the clients' checks; every client
// is a full agent). A connection is disconnected after 10 s without a check (browsers check
// consent every 5 s) and failed after 30 s.
const (
	iceDisconnected = 10 * time.Second
	iceFailed       = 30 * time.Second
	iceKeepalive    = 2 * time.Second
)

// settings are the SettingEngine of every PeerConnection: the media port's muxes, host
// candidates only, no mDNS (no multicast socket per connection).
func settings(udp ice.UDPMux, tcp ice.TCPMux, loopback bool, rules []webrtc.ICEAddressRewriteRule, lf pionLogs) (webrtc.SettingEngine, error) {
	var se webrtc.SettingEngine
	se.LoggerFactory = lf
	se.SetLite(true)
	se.SetICEUDPMux(udp)
	se.SetICETCPMux(tcp)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4, webrtc.NetworkTypeUDP6, webrtc.NetworkTypeTCP4, webrtc.NetworkTypeTCP6})
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetICETimeouts(iceDisconnected, iceFailed, iceKeepalive)
	se.SetIncludeLoopbackCandidate(loopback)
	if len(rules) > 0 {
		if err := se.SetICEAddressRewriteRules(rules...); err != nil {
			return se, err
		}
	}
	return se, nil
}

// newCertificate makes the DTLS certificate of the server's PeerConnections.
func newCertificate() (webrtc.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return webrtc.Certificate{}, err
	}
	c, err := webrtc.GenerateCertificate(key)
	if err != nil {
		return webrtc.Certificate{}, err
	}
	return *c, nil
}
