package core

import "encoding/binary"

// The point-to-point protocol every link carries. A frame is a fixed
// header, followed by a body for eager and data frames.
//
//	eager  header + body           a message of up to Short bytes
//	rts    header                  a longer message is ready (rendezvous);
//	                               with flagDirect, recvID is the address
//	                               of the sender's buffer, which the
//	                               receiver may copy itself (then: sack);
//	                               with flagWhole too, all of it (no split
//	                               copy: the sender has other long sends)
//	cts    header                  the receiver matched it: send the body;
//	                               with flagDirect (split copy), write the
//	                               first length bytes to the receiver's
//	                               buffer, whose address is context (low
//	                               32 bits) and source (high), while the
//	                               receiver reads the rest (then: sack);
//	                               with flagAll too, the receiver reads
//	                               nothing (no sack: the send is done once
//	                               written), the answer to an rts with
//	                               flagPush, whose body is spread over the
//	                               sender's memory (a derived datatype)
//	data   header + body           the body of a rendezvous message (or,
//	                               split, its first part); with flagDirect
//	                               and no body: the first part is written
//	sack   header                  a synchronous send was matched, or a
//	                               direct rts's body was copied
//	cancel header                  withdraw an unmatched send (sendID)
//	cack   header                  the answer: flagCancelled if withdrawn
const (
	frameEager = 1 + iota
	frameRTS
	frameCTS
	frameData
	frameSAck
	frameCancel
	frameCancelAck
	frameEnd
)

// Frame flags.
const (
	flagSync      = 1 << iota // synchronous send: acknowledge the match
	flagCancelled             // cack: the message was withdrawn
	flagDirect                // rts: the receiver may read the body from the sender's memory
	flagPush                  // rts: the body is spread out; the sender can write it into the receiver's buffer (ask with a direct cts and flagAll)
	flagAll                   // direct cts: write all of the length asked for; the receiver reads none itself
	flagWhole                 // direct rts: the sender has other long sends under way; read the whole body, ask for no split
)

const headerSize = 40

// header is a decoded frame header.
type header struct {
	typ     uint8
	flags   uint8
	context uint32
	source  int32 // sender's rank in the communicator
	tag     int32
	length  uint64
	sendID  uint64 // the sender's request (rts, cts, sack)
	recvID  uint64 // the receiver's request (cts, data)
}

func (h *header) encode(b *[headerSize]byte) {
	b[0], b[1], b[2], b[3] = h.typ, h.flags, 0, 0
	binary.LittleEndian.PutUint32(b[4:], h.context)
	binary.LittleEndian.PutUint32(b[8:], uint32(h.source))
	binary.LittleEndian.PutUint32(b[12:], uint32(h.tag))
	binary.LittleEndian.PutUint64(b[16:], h.length)
	binary.LittleEndian.PutUint64(b[24:], h.sendID)
	binary.LittleEndian.PutUint64(b[32:], h.recvID)
}

func (h *header) decode(b *[headerSize]byte) {
	h.typ, h.flags = b[0], b[1]
	h.context = binary.LittleEndian.Uint32(b[4:])
	h.source = int32(binary.LittleEndian.Uint32(b[8:]))
	h.tag = int32(binary.LittleEndian.Uint32(b[12:]))
	h.length = binary.LittleEndian.Uint64(b[16:])
	h.sendID = binary.LittleEndian.Uint64(b[24:])
	h.recvID = binary.LittleEndian.Uint64(b[32:])
}
