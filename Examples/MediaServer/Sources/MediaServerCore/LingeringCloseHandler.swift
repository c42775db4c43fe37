import NIOCore
import NIOHTTPTypes

/// Closes a connection after a response that says `Connection: close` (a 413 for an upload that was
/// not read to its end), without losing that response.
///
/// Closing at once while the client is still sending makes the kernel answer with a reset, and many
/// clients then never see the response. So the output side is closed first (the client reads the
/// response and an end of stream), what the client still sends is read and discarded by Hummingbird
/// for at most `linger`, and then the connection is closed whole. Runs on the connection's event
/// loop, in the channel pipeline after Hummingbird's HTTP/1 codec.
final class LingeringCloseHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let linger: TimeAmount
    private var closeAfterResponse = false

    init(linger: TimeAmount) {
        self.linger = linger
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            closeAfterResponse = head.headerFields[.connection]?.lowercased() == "close"
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard closeAfterResponse else { return context.write(data, promise: promise) }
            closeAfterResponse = false
            context.writeAndFlush(data, promise: promise)
            context.close(mode: .output, promise: nil)
            let channel = context.channel
            context.eventLoop.scheduleTask(in: linger) { channel.close(promise: nil) }
        }
    }
}
