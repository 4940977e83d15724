package wire

import (
	"bufio"
	"net"
	"sync"
	"time"
)

// Conn is a framed connection. Writes may come from many goroutines; reads
// from one.
type Conn struct {
	nc   net.Conn
	r    *bufio.Reader
	wmu  sync.Mutex
	wbuf []byte
}

// NewConn frames nc.
func NewConn(nc net.Conn) *Conn {
	return &Conn{nc: nc, r: bufio.NewReaderSize(nc, 64<<10)}
}

// NetConn returns the underlying connection.
func (c *Conn) NetConn() net.Conn { return c.nc }

// Write sends one frame. It gives up after timeout if the peer does not
// read (0 means no limit).
func (c *Conn) Write(id uint64, flags uint16, m Message, timeout time.Duration) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf = AppendFrame(c.wbuf[:0], id, flags, m)
	if timeout > 0 {
		_ = c.nc.SetWriteDeadline(time.Now().Add(timeout))
		defer c.nc.SetWriteDeadline(time.Time{})
	}
	_, err := c.nc.Write(c.wbuf)
	if cap(c.wbuf) > 1<<20 {
		c.wbuf = nil // do not keep a huge buffer around
	}
	return err
}

// Read receives one frame.
func (c *Conn) Read() (Frame, error) { return ReadFrame(c.r) }

// ReadWithin receives one frame as Read does, but once the frame has begun
// the rest of it must arrive within d (d <= 0: no limit). The wait for it
// to begin is not bounded. It clears the read deadline when it returns.
func (c *Conn) ReadWithin(d time.Duration) (Frame, error) {
	if d <= 0 {
		return c.Read()
	}
	if c.r.Buffered() == 0 {
		if _, err := c.r.Peek(1); err != nil {
			return Frame{}, err
		}
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(d))
	defer c.nc.SetReadDeadline(time.Time{})
	return c.Read()
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// Buffered is how many bytes were read from the connection and not yet
// returned in a frame.
func (c *Conn) Buffered() int { return c.r.Buffered() }
