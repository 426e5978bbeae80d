//! The kubelet's plugin watcher dials a plugin's socket with the socket's path as the HTTP/2
//! `:authority` (`/var/lib/kubelet/plugins_registry/…`), which the HTTP/2 server behind tonic
//! (h2) refuses as malformed (`RST_STREAM PROTOCOL_ERROR`; Kubernetes gave `localhost` to some of
//! its Unix-socket clients, not this one). So each connection is relayed to the gRPC server
//! through an in-process pipe, the request headers decoded and encoded again with the
//! `:authority` `localhost`; every other frame, and everything the server sends, passes as it is.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream, ReadBuf};
use tokio::net::{UnixListener, UnixStream};

const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const HEADERS: u8 = 0x1;
const CONTINUATION: u8 = 0x9;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;
/// The default SETTINGS_MAX_FRAME_SIZE: no frame of a client that was not told more is larger.
const MAX_FRAME: usize = 16_384;
/// A request's header block is small; more is refused rather than held.
const MAX_BLOCK: usize = 64 * 1024;

/// The server's end of a relayed connection.
pub(crate) struct Relayed(DuplexStream);

impl tonic::transport::server::Connected for Relayed {
    type ConnectInfo = ();
    fn connect_info(&self) {}
}

impl AsyncRead for Relayed {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl AsyncWrite for Relayed {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

/// The connections to `listener`, each relayed with its `:authority` made `localhost`.
pub(crate) fn relayed(
    listener: UnixListener,
) -> impl futures::Stream<Item = io::Result<Relayed>> + Send + 'static {
    futures::stream::unfold(listener, |listener| async move {
        let next = match listener.accept().await {
            Ok((client, _)) => {
                let (ours, server) = tokio::io::duplex(64 * 1024);
                tokio::spawn(relay(client, ours));
                Ok(Relayed(server))
            }
            Err(e) => Err(e),
        };
        Some((next, listener))
    })
}

async fn relay(client: UnixStream, server: DuplexStream) {
    let (mut from_client, mut to_client) = client.into_split();
    let (mut from_server, mut to_server) = tokio::io::split(server);
    let up = async {
        let _ = rewrite(&mut from_client, &mut to_server).await;
        let _ = to_server.shutdown().await;
    };
    let down = async {
        let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
        let _ = to_client.shutdown().await;
    };
    tokio::join!(up, down);
}

fn malformed(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

/// Copy the client's frames to the server, each header block with `:authority: localhost`.
async fn rewrite<R, W>(from: &mut R, to: &mut W) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut preface = [0u8; 24];
    from.read_exact(&mut preface).await?;
    if &preface != PREFACE {
        return Err(malformed("not an HTTP/2 connection"));
    }
    to.write_all(&preface).await?;
    let mut decoder = loona_hpack::Decoder::new();
    let mut encoder = loona_hpack::Encoder::new();
    // A header block still waiting for its CONTINUATION frames: flags, stream, block.
    let mut pending: Option<(u8, [u8; 4], Vec<u8>)> = None;
    loop {
        let mut head = [0u8; 9];
        match from.read_exact(&mut head).await {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        }
        let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
        if len > MAX_FRAME {
            return Err(malformed("a frame larger than the client was allowed"));
        }
        let (kind, flags) = (head[3], head[4]);
        let stream = [head[5], head[6], head[7], head[8]];
        let mut payload = vec![0u8; len];
        from.read_exact(&mut payload).await?;
        let waiting = pending.is_some();
        let block = match (kind, pending.as_mut()) {
            (HEADERS, None) => {
                let mut p = &payload[..];
                let mut pad = 0;
                if flags & PADDED != 0 {
                    pad = usize::from(*p.first().ok_or_else(|| malformed("padding"))?);
                    p = &p[1..];
                }
                if flags & PRIORITY != 0 {
                    p = p.get(5..).ok_or_else(|| malformed("priority"))?;
                }
                let fragment = p
                    .get(
                        ..p.len()
                            .checked_sub(pad)
                            .ok_or_else(|| malformed("padding"))?,
                    )
                    .ok_or_else(|| malformed("padding"))?;
                pending = Some((flags & END_STREAM, stream, fragment.to_vec()));
                flags & END_HEADERS != 0
            }
            (CONTINUATION, Some((_, s, block))) if *s == stream => {
                block.extend_from_slice(&payload);
                if block.len() > MAX_BLOCK {
                    return Err(malformed("a header block too large"));
                }
                flags & END_HEADERS != 0
            }
            (HEADERS | CONTINUATION, _) => return Err(malformed("an interleaved header block")),
            _ if waiting => return Err(malformed("a frame inside a header block")),
            _ => {
                to.write_all(&head).await?;
                to.write_all(&payload).await?;
                continue;
            }
        };
        if !block {
            continue;
        }
        let Some((end_stream, stream, block)) = pending.take() else {
            continue;
        };
        let headers = decoder
            .decode(&block)
            .map_err(|e| malformed(&format!("a header block: {e:?}")))?;
        let headers: Vec<(&[u8], &[u8])> = headers
            .iter()
            .map(|(n, v)| {
                let v: &[u8] = if n == b":authority" { b"localhost" } else { v };
                (&n[..], v)
            })
            .collect();
        let encoded = encoder.encode(headers);
        if encoded.len() > MAX_FRAME {
            return Err(malformed("a header block too large"));
        }
        let len = (encoded.len() as u32).to_be_bytes();
        let frame_head = [
            len[1],
            len[2],
            len[3],
            HEADERS,
            END_HEADERS | end_stream,
            stream[0],
            stream[1],
            stream[2],
            stream[3],
        ];
        to.write_all(&frame_head).await?;
        to.write_all(&encoded).await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
        let len = (payload.len() as u32).to_be_bytes();
        let mut f = vec![len[1], len[2], len[3], kind, flags];
        f.extend_from_slice(&stream.to_be_bytes());
        f.extend_from_slice(payload);
        f
    }

    #[tokio::test]
    async fn the_authority_becomes_localhost_and_the_rest_passes() {
        let mut client_encoder = loona_hpack::Encoder::new();
        let request: Vec<(&[u8], &[u8])> = vec![
            (b":method", b"POST"),
            (b":scheme", b"http"),
            (b":path", b"/pluginregistration.Registration/GetInfo"),
            (b":authority", b"/var/lib/kubelet/plugins_registry/x.sock"),
            (b"content-type", b"application/grpc"),
        ];
        let block = client_encoder.encode(request.clone());
        let (first, rest) = block.split_at(block.len() / 2);
        let mut input = PREFACE.to_vec();
        input.extend(frame(0x4, 0, 0, &[])); // SETTINGS
        input.extend(frame(
            HEADERS,
            PADDED,
            1,
            &[&[2u8][..], first, &[0, 0]].concat(),
        ));
        input.extend(frame(CONTINUATION, END_HEADERS, 1, rest));
        input.extend(frame(0x0, END_STREAM, 1, b"data"));
        let mut out = Vec::new();
        rewrite(&mut &input[..], &mut out).await.unwrap();
        assert_eq!(&out[..24], PREFACE);
        let settings = &out[24..33];
        assert_eq!(settings[3], 0x4);
        let headers = &out[33..];
        let len = u32::from_be_bytes([0, headers[0], headers[1], headers[2]]) as usize;
        assert_eq!((headers[3], headers[4]), (HEADERS, END_HEADERS));
        let decoded = loona_hpack::Decoder::new()
            .decode(&headers[9..9 + len])
            .unwrap();
        let authority = decoded.iter().find(|(n, _)| n == b":authority").unwrap();
        assert_eq!(authority.1, b"localhost");
        assert_eq!(decoded.len(), request.len());
        let data = &headers[9 + len..];
        assert_eq!(data, frame(0x0, END_STREAM, 1, b"data"));
        // Garbage is refused, not relayed.
        let mut out = Vec::new();
        assert!(
            rewrite(&mut &b"GET / HTTP/1.1\r\n\r\nxxxxxxxx"[..], &mut out)
                .await
                .is_err()
        );
        let mut bad = PREFACE.to_vec();
        bad.extend(frame(HEADERS, PADDED | END_HEADERS, 1, &[200]));
        assert!(rewrite(&mut &bad[..], &mut Vec::new()).await.is_err());
    }
}
