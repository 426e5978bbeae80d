//! A relay in front of the kubelet's socket that makes grpc-go's `:authority` one HTTP/2 takes.
//!
//! A grpc-go client that dials a Unix socket by its path (as every device plugin does) sends
//! the path as the `:authority` of its requests. The kubelet, itself grpc-go, ignores it; the
//! HTTP/2 server under tonic refuses it as a malformed header and resets the stream
//! (PROTOCOL_ERROR). Each connection is relayed frame by frame: the client's header blocks are
//! decoded and encoded again with an authority that is not a valid one replaced by `localhost`
//! (what the kubelet's own clients send over Unix sockets); every other frame, and everything
//! the server sends, passes unchanged.

use fluke_hpack::{Decoder, Encoder};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const HEADERS: u8 = 0x1;
const CONTINUATION: u8 = 0x9;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;
/// SETTINGS_MAX_FRAME_SIZE's least value: every peer takes frames this large.
const MAX_FRAME: usize = 16_384;

/// The connections of `listener`, each through the relay: what a tonic server serves on a
/// socket that grpc-go clients dial.
pub(crate) fn incoming(
    listener: tokio::net::UnixListener,
) -> tokio_stream::wrappers::ReceiverStream<std::io::Result<tokio::io::DuplexStream>> {
    let (relayed, incoming) = tokio::sync::mpsc::channel(16);
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let (outer, inner) = tokio::io::duplex(64 * 1024);
            tokio::spawn(relay(client, outer));
            if relayed.send(Ok(inner)).await.is_err() {
                return;
            }
        }
    });
    tokio_stream::wrappers::ReceiverStream::new(incoming)
}

/// Relay one connection between a client and the server until either side closes.
pub(crate) async fn relay<C, S>(client: C, server: S)
where
    C: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut from_client, mut to_client) = tokio::io::split(client);
    let (from_server, to_server) = tokio::io::split(server);
    let back = tokio::spawn(async move {
        let mut from_server = from_server;
        let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
        let _ = to_client.shutdown().await;
    });
    let mut to_server = to_server;
    let _ = forward(&mut from_client, &mut to_server).await;
    // The client is gone: the server sees the end, and its answer drains to the client.
    let _ = to_server.shutdown().await;
    let _ = back.await;
}

/// One frame: type, flags, stream, payload.
struct Frame {
    kind: u8,
    flags: u8,
    stream: u32,
    payload: Vec<u8>,
}

async fn read_frame<R: AsyncRead + Unpin>(r: &mut R) -> std::io::Result<Frame> {
    let mut head = [0u8; 9];
    r.read_exact(&mut head).await?;
    let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
    let mut payload = vec![0u8; len];
    r.read_exact(&mut payload).await?;
    Ok(Frame {
        kind: head[3],
        flags: head[4],
        stream: u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff,
        payload,
    })
}

async fn write_frame<W: AsyncWrite + Unpin>(w: &mut W, f: &Frame) -> std::io::Result<()> {
    let len = (f.payload.len() as u32).to_be_bytes();
    let mut head = [len[1], len[2], len[3], f.kind, f.flags, 0, 0, 0, 0];
    head[5..].copy_from_slice(&f.stream.to_be_bytes());
    w.write_all(&head).await?;
    w.write_all(&f.payload).await
}

fn invalid(why: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_string())
}

async fn forward<R, W>(from: &mut R, to: &mut W) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut preface = [0u8; 24];
    from.read_exact(&mut preface).await?;
    if &preface != PREFACE {
        return Err(invalid("not an HTTP/2 client"));
    }
    to.write_all(&preface).await?;
    let mut decoder = Decoder::new();
    let mut encoder = Encoder::new();
    loop {
        let first = read_frame(from).await?;
        if first.kind != HEADERS {
            write_frame(to, &first).await?;
            continue;
        }
        // A header block: its HEADERS fragment, then CONTINUATION frames to END_HEADERS.
        let mut rest = first.payload.as_slice();
        let pad = if first.flags & PADDED != 0 {
            let (&n, tail) = rest.split_first().ok_or_else(|| invalid("no pad length"))?;
            rest = tail;
            n as usize
        } else {
            0
        };
        let mut priority = Vec::new();
        if first.flags & PRIORITY != 0 {
            if rest.len() < 5 {
                return Err(invalid("short priority"));
            }
            priority = rest[..5].to_vec();
            rest = &rest[5..];
        }
        let mut block = rest
            .get(..rest.len().saturating_sub(pad))
            .ok_or_else(|| invalid("padding"))?
            .to_vec();
        let mut flags = first.flags;
        while flags & END_HEADERS == 0 {
            let next = read_frame(from).await?;
            if next.kind != CONTINUATION || next.stream != first.stream {
                return Err(invalid("a header block interrupted"));
            }
            block.extend_from_slice(&next.payload);
            flags = next.flags;
        }
        let headers = decoder
            .decode(&block)
            .map_err(|e| invalid(&format!("HPACK: {e:?}")))?;
        let headers: Vec<(Vec<u8>, Vec<u8>)> = headers
            .into_iter()
            .map(|(name, value)| {
                if name == b":authority" && http::uri::Authority::try_from(&value[..]).is_err() {
                    (name, b"localhost".to_vec())
                } else {
                    (name, value)
                }
            })
            .collect();
        let encoded = encoder.encode(headers.iter().map(|(n, v)| (&n[..], &v[..])));
        let mut payload = priority;
        let room = MAX_FRAME - payload.len();
        let (now, later) = encoded.split_at(encoded.len().min(room));
        payload.extend_from_slice(now);
        let chunks: Vec<&[u8]> = later.chunks(MAX_FRAME).collect();
        let mut headers_flags = first.flags & (END_STREAM | PRIORITY);
        if chunks.is_empty() {
            headers_flags |= END_HEADERS;
        }
        write_frame(
            to,
            &Frame {
                kind: HEADERS,
                flags: headers_flags,
                stream: first.stream,
                payload,
            },
        )
        .await?;
        for (i, chunk) in chunks.iter().enumerate() {
            let last = i + 1 == chunks.len();
            write_frame(
                to,
                &Frame {
                    kind: CONTINUATION,
                    flags: if last { END_HEADERS } else { 0 },
                    stream: first.stream,
                    payload: chunk.to_vec(),
                },
            )
            .await?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let len = (payload.len() as u32).to_be_bytes();
        let mut out = vec![len[1], len[2], len[3], kind, flags];
        out.extend_from_slice(&stream.to_be_bytes());
        out.extend_from_slice(payload);
        out
    }

    /// What the server receives when a client sends `wire`.
    fn relayed(wire: Vec<u8>) -> Vec<u8> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let (mut client, outer) = tokio::io::duplex(1 << 20);
            let (outer_server, mut server) = tokio::io::duplex(1 << 20);
            let relay = tokio::spawn(relay(outer, outer_server));
            client.write_all(&wire).await.unwrap();
            client.shutdown().await.unwrap();
            let mut got = Vec::new();
            server.read_to_end(&mut got).await.unwrap();
            drop(server);
            relay.await.unwrap();
            got
        })
    }

    #[test]
    fn a_path_authority_becomes_localhost_and_all_else_passes() {
        let mut client_hpack = Encoder::new();
        let request: [(&[u8], &[u8]); 4] = [
            (b":method", b"POST"),
            (b":path", b"/v1beta1.Registration/Register"),
            (
                b":authority",
                b"/var/lib/kubelet/device-plugins/kubelet.sock",
            ),
            (b"content-type", b"application/grpc"),
        ];
        let block = client_hpack.encode(request);
        let (one, two) = block.split_at(block.len() / 2);
        let settings = frame(0x4, 0, 0, &[0, 3, 0, 0, 0, 100]);
        let data = frame(0x0, END_STREAM, 1, b"\0\0\0\0\x02ab");
        // A padded HEADERS frame continued in a CONTINUATION frame, then a valid authority.
        let mut padded = vec![3];
        padded.extend_from_slice(one);
        padded.extend_from_slice(&[0, 0, 0]);
        let second: [(&[u8], &[u8]); 1] = [(b":authority", b"localhost:10250")];
        let second = client_hpack.encode(second);
        let mut wire = PREFACE.to_vec();
        wire.extend(&settings);
        wire.extend(frame(HEADERS, PADDED, 1, &padded));
        wire.extend(frame(CONTINUATION, END_HEADERS, 1, two));
        wire.extend(&data);
        wire.extend(frame(HEADERS, END_HEADERS | END_STREAM, 3, &second));

        let got = relayed(wire);
        assert_eq!(&got[..24], PREFACE);
        let mut rest = &got[24..];
        let mut frames = Vec::new();
        while !rest.is_empty() {
            let len = u32::from_be_bytes([0, rest[0], rest[1], rest[2]]) as usize;
            frames.push(rest[..9 + len].to_vec());
            rest = &rest[9 + len..];
        }
        assert_eq!(frames.len(), 4, "{frames:?}");
        assert_eq!(frames[0], settings);
        assert_eq!(frames[2], data);
        let mut server_hpack = Decoder::new();
        assert_eq!(frames[1][3..5], [HEADERS, END_HEADERS]);
        let headers = server_hpack.decode(&frames[1][9..]).unwrap();
        let mut wanted: Vec<(Vec<u8>, Vec<u8>)> = request
            .iter()
            .map(|(n, v)| (n.to_vec(), v.to_vec()))
            .collect();
        wanted[2].1 = b"localhost".to_vec();
        assert_eq!(headers, wanted);
        assert_eq!(frames[3][4], END_HEADERS | END_STREAM);
        let headers = server_hpack.decode(&frames[3][9..]).unwrap();
        assert_eq!(
            headers,
            [(b":authority".to_vec(), b"localhost:10250".to_vec())]
        );
    }

    #[test]
    fn a_client_that_is_not_http2_is_dropped() {
        assert!(relayed(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec()).is_empty());
    }
}
