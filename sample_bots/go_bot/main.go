// A sample Seka bot in Go, built from Debian's packages (golang-go, golang-google-grpc-dev,
// golang-github-golang-protobuf-1-5-dev, protobuf-compiler, protoc-gen-go, protoc-gen-go-grpc):
// `make go_bot` generates the protocol's code with protoc and builds ./go_bot offline.
//
// It serves seka.v1.SekaBot and grpc-go's standard health service, and plays every profile
// (hands.go values the hands of each) by hand strength with two thresholds, as the JS and
// Python threshold bots do:
//
//	strong (28 or more, or any seka): show, open or call when it may, otherwise raise to the most;
//	medium (21 to 27):                pay the least allowed (support); after 10 actions it shows,
//	                                  opens or calls when it may;
//	weak (below 21):                  pay the least when nobody has paid yet, else fold.
//
// With two-card hands (classic, cards: 2) the thresholds are 21 and 17. Dealt in without seeing
// its cards (dark play), it looks. It declines svara offers.
//
// Run it with the address in SEKA_BOT_ADDRESS or after --address:
//
//	SEKA_BOT_ADDRESS=unix:/tmp/go.sock sample_bots/go_bot/go_bot
//	sample_bots/go_bot/go_bot --address 127.0.0.1:50051
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	sekav1 "seka-arena/protos/seka/v1"
)

const (
	protocolVersion = "seka.v1"
	sekaService     = "seka.v1.SekaBot"
	strong          = 28
	medium          = 21
	strongTwoCards  = 21
	mediumTwoCards  = 17
	showAfter       = 10 // actions: two medium hands calling each other would otherwise run to the cap
)

// table is the session's table, from its Hello: the profile and its options value the hands.
type table struct {
	profile  string
	options  map[string]string
	handSize int32
}

type bot struct {
	sekav1.UnimplementedSekaBotServer
	mu    sync.Mutex
	table table
}

func (b *bot) Hello(_ context.Context, hello *sekav1.HelloRequest) (*sekav1.HelloReply, error) {
	if hello.GetProtocolVersion() != protocolVersion {
		log.Printf("the arena speaks %q", hello.GetProtocolVersion())
	}
	t := table{profile: hello.GetProfile(), options: hello.GetOptions(), handSize: hello.GetTable().GetHandSize()}
	if t.profile == "" {
		t.profile = "georgian"
	}
	if t.handSize == 0 {
		t.handSize = 3
	}
	b.mu.Lock()
	b.table = t
	b.mu.Unlock()
	log.Printf("session %s: %s %v, seat %d of %d", hello.GetSessionId(), t.profile, t.options, hello.GetSeat(),
		hello.GetTable().GetSeats())
	return &sekav1.HelloReply{Name: "go-threshold", Version: "1.0", ProtocolVersion: protocolVersion}, nil
}

func (b *bot) Act(_ context.Context, turn *sekav1.TurnRequest) (*sekav1.TurnReply, error) {
	for _, notice := range turn.GetNotices() {
		handleNotice(notice)
	}
	b.mu.Lock()
	t := b.table
	b.mu.Unlock()
	return decide(turn, t), nil
}

func (b *bot) Svara(_ context.Context, offer *sekav1.SvaraOffer) (*sekav1.SvaraReply, error) {
	for _, notice := range offer.GetNotices() {
		handleNotice(notice)
	}
	return &sekav1.SvaraReply{Accept: false}, nil
}

func (b *bot) Notify(_ context.Context, notice *sekav1.Notice) (*sekav1.NoticeReply, error) {
	handleNotice(notice)
	return &sekav1.NoticeReply{}, nil
}

// handleNotice: what happened in the session, told in order inside the next Act or Svara request,
// or at the session's end by Notify, whose session_end carries the notices left. This bot only
// logs the end.
func handleNotice(notice *sekav1.Notice) {
	end := notice.GetSessionEnd()
	if end == nil {
		return
	}
	for _, earlier := range end.GetNotices() {
		handleNotice(earlier)
	}
	log.Printf("session over: winners %v", end.GetWinners())
}

// ---------------------------------------------------------------- the game

func fold() *sekav1.TurnReply {
	return &sekav1.TurnReply{Action: &sekav1.TurnReply_Fold{Fold: &sekav1.FoldAction{}}}
}

// compare ends the betting by comparing hands when the bot may: show (heads-up), open, call.
func compare(legal *sekav1.LegalActions) *sekav1.TurnReply {
	switch {
	case legal.GetCanShow():
		return &sekav1.TurnReply{Action: &sekav1.TurnReply_Show{Show: &sekav1.ShowAction{}}}
	case legal.GetOpen() != nil:
		return &sekav1.TurnReply{Action: &sekav1.TurnReply_Open{Open: &sekav1.OpenAction{}}}
	case legal.GetCall() != nil:
		return &sekav1.TurnReply{Action: &sekav1.TurnReply_Call{Call: &sekav1.CallAction{}}}
	}
	return nil
}

// stay is the cheapest way to stay in: a fresh bet of the least, or a support.
func stay(legal *sekav1.LegalActions) *sekav1.TurnReply {
	if legal.GetMinBet() != nil {
		return &sekav1.TurnReply{Action: &sekav1.TurnReply_Bet{Bet: &sekav1.BetAction{Amount: legal.GetMinBet()}}}
	}
	if legal.GetSupport() != nil {
		return &sekav1.TurnReply{Action: &sekav1.TurnReply_Support{Support: &sekav1.SupportAction{}}}
	}
	if ending := compare(legal); ending != nil {
		return ending
	}
	return fold()
}

// push is the strongest payment: a fresh bet of the most, or a raise to the highest stake.
func push(legal *sekav1.LegalActions) *sekav1.TurnReply {
	if legal.GetMaxBet() != nil {
		return &sekav1.TurnReply{Action: &sekav1.TurnReply_Bet{Bet: &sekav1.BetAction{Amount: legal.GetMaxBet()}}}
	}
	if legal.GetRaiseTo() != nil {
		return &sekav1.TurnReply{Action: &sekav1.TurnReply_RaiseTo{RaiseTo: &sekav1.RaiseToAction{Stake: legal.GetRaiseTo().GetMax()}}}
	}
	return stay(legal)
}

func decide(turn *sekav1.TurnRequest, t table) *sekav1.TurnReply {
	legal := turn.GetLegal()
	if turn.GetCardsUnseen() {
		if legal.GetCanLook() {
			return &sekav1.TurnReply{Action: &sekav1.TurnReply_Look{Look: &sekav1.LookAction{}}}
		}
		return fold()
	}
	strength := HandValue(turn.GetCards(), t.profile, t.options)
	strongFrom, mediumFrom := strong, medium
	if t.handSize == 2 {
		strongFrom, mediumFrom = strongTwoCards, mediumTwoCards
	}
	switch {
	case strength >= strongFrom:
		if ending := compare(legal); ending != nil {
			return ending
		}
		return push(legal)
	case strength >= mediumFrom:
		if turn.GetActionsCount() >= showAfter {
			if ending := compare(legal); ending != nil {
				return ending
			}
		}
		return stay(legal)
	case turn.GetPreviousBet() == nil:
		return stay(legal)
	}
	return fold()
}

// ---------------------------------------------------------------- launch

// listen opens the address the arena gives: `unix:PATH` (or `unix://PATH`) is a Unix socket,
// anything else HOST:PORT. net.Listen takes the network apart from the address, so the `unix:`
// prefix that gRPC's own address syntax uses must be split off here.
func listen(address string) (net.Listener, error) {
	if strings.HasPrefix(address, "unix:") {
		path := strings.TrimPrefix(strings.TrimPrefix(address, "unix:"), "//")
		return net.Listen("unix", path)
	}
	return net.Listen("tcp", address)
}

// printValues is the hand-values mode of tests/sdk/test_go_hands.py: {profile, options, hands} on
// stdin, the value of each hand on stdout, as JSON.
func printValues() error {
	var request struct {
		Profile string            `json:"profile"`
		Options map[string]string `json:"options"`
		Hands   [][]string        `json:"hands"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&request); err != nil {
		return err
	}
	values := make([]int, len(request.Hands))
	for index, hand := range request.Hands {
		values[index] = HandValue(hand, request.Profile, request.Options)
	}
	return json.NewEncoder(os.Stdout).Encode(values)
}

func main() {
	log.SetPrefix("go_bot: ")
	log.SetFlags(log.LstdFlags | log.LUTC | log.Lmicroseconds)
	address := flag.String("address", os.Getenv("SEKA_BOT_ADDRESS"), "where to listen: unix:PATH or HOST:PORT "+
		"(default: $SEKA_BOT_ADDRESS)")
	values := flag.Bool("values", false, "print the values of the hands given on stdin (for the tests), then exit")
	flag.Parse()
	if *values {
		if err := printValues(); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *address == "" {
		log.Print("no address to listen on: set SEKA_BOT_ADDRESS or pass --address ADDR")
		os.Exit(2)
	}
	listener, err := listen(*address)
	if err != nil {
		log.Fatalf("cannot listen on %s: %v", *address, err)
	}
	server := grpc.NewServer()
	sekav1.RegisterSekaBotServer(server, &bot{table: table{profile: "georgian", handSize: 3}})
	healthServer := health.NewServer()
	healthpb.RegisterHealthServer(server, healthServer)
	healthServer.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	healthServer.SetServingStatus(sekaService, healthpb.HealthCheckResponse_SERVING)

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		log.Print("stopping")
		healthServer.Shutdown() // NOT_SERVING to every watcher
		force := time.AfterFunc(time.Second, server.Stop)
		server.GracefulStop()
		force.Stop()
	}()
	log.Printf("serving %s on %s", protocolVersion, *address)
	if err := server.Serve(listener); err != nil {
		log.Fatalf("serving: %v", err)
	}
}
