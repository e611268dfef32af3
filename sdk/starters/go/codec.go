// The message codec: gRPC's default "proto" codec replaced by one built on
// google.golang.org/protobuf (APIv2), the library protoc-gen-go generates code for.
//
// Why: Debian's golang-google-grpc-dev (1.33) depends on golang-github-golang-protobuf-1-3-dev
// OR -1-5-dev, and apt picks 1.3, whose marshaler predates APIv2 and crashes on the generated
// messages (a nil pointer in makeOneOfMarshaler on the first Send). Registering this codec
// under the same name makes gRPC use it whichever of the two is installed. Nothing to change
// here when you write your bot.
package main

import (
	"fmt"

	"google.golang.org/grpc/encoding"
	"google.golang.org/protobuf/proto"
)

type codec struct{}

func (codec) Marshal(v interface{}) ([]byte, error) {
	message, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("codec: %T is not a protobuf message", v)
	}
	return proto.Marshal(message)
}

func (codec) Unmarshal(data []byte, v interface{}) error {
	message, ok := v.(proto.Message)
	if !ok {
		return fmt.Errorf("codec: %T is not a protobuf message", v)
	}
	return proto.Unmarshal(data, message)
}

// Name is the codec gRPC uses by default: registering it replaces the built-in one.
func (codec) Name() string { return "proto" }

func init() { encoding.RegisterCodec(codec{}) }
