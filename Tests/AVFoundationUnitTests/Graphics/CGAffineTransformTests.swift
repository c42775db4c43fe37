import AVFoundation
import Testing

@Suite("CGAffineTransform")
struct CGAffineTransformTests {
    private func close(_ a: CGFloat, _ b: CGFloat) -> Bool { abs(a - b) < 1e-9 }
    private func close(_ p: CGPoint, _ q: CGPoint) -> Bool { close(p.x, q.x) && close(p.y, q.y) }

    @Test func identityAndZero() {
        #expect(CGAffineTransform.identity.isIdentity)
        #expect(CGAffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0).isIdentity)
        #expect(!CGAffineTransform().isIdentity && CGAffineTransform().a == 0)
        #expect(CGPoint(x: 3, y: 4).applying(.identity) == CGPoint(x: 3, y: 4))
    }

    @Test func constructors() {
        let rotation = CGAffineTransform(rotationAngle: .pi / 2)
        #expect(close(rotation.a, 0) && close(rotation.b, 1) && close(rotation.c, -1) && close(rotation.d, 0))
        #expect(close(CGPoint(x: 1, y: 0).applying(rotation), CGPoint(x: 0, y: 1)))
        #expect(CGPoint(x: 2, y: 3).applying(CGAffineTransform(scaleX: 2, y: -1)) == CGPoint(x: 4, y: -3))
        #expect(CGPoint(x: 2, y: 3).applying(CGAffineTransform(translationX: 10, y: 20)) == CGPoint(x: 12, y: 23))
    }

    @Test func concatenationOrder() {
        let scale = CGAffineTransform(scaleX: 2, y: 2), move = CGAffineTransform(translationX: 1, y: 0)
        #expect(CGPoint(x: 1, y: 1).applying(scale.concatenating(move)) == CGPoint(x: 3, y: 2), "scale, then move")
        #expect(CGPoint(x: 1, y: 1).applying(move.concatenating(scale)) == CGPoint(x: 4, y: 2), "move, then scale")
        #expect(CGPoint(x: 1, y: 1).applying(move.scaledBy(x: 2, y: 2)) == CGPoint(x: 3, y: 2), "scaledBy scales first")
        #expect(CGPoint(x: 0, y: 0).applying(scale.translatedBy(x: 1, y: 1)) == CGPoint(x: 2, y: 2))
        #expect(close(CGPoint(x: 1, y: 0).applying(CGAffineTransform.identity.rotated(by: .pi)), CGPoint(x: -1, y: 0)))
    }

    @Test func inversion() {
        let t = CGAffineTransform(a: 2, b: 1, c: -1, d: 3, tx: 5, ty: -7)
        let p = CGPoint(x: 11, y: 13)
        #expect(close(p.applying(t).applying(t.inverted()), p))
        #expect(t.concatenating(t.inverted()).a.distance(to: 1) < 1e-12)
        let singular = CGAffineTransform(a: 1, b: 2, c: 2, d: 4, tx: 1, ty: 1)
        #expect(singular.inverted() == singular, "not invertible: returned unchanged")
    }

    @Test func sizesAndRects() {
        let quarter = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 240, ty: 0)
        let size = CGSize(width: 320, height: 240).applying(quarter)
        #expect(size == CGSize(width: -240, height: 320), "sizes ignore translation and keep sign")
        let rect = CGRect(x: 0, y: 0, width: 320, height: 240).applying(quarter)
        #expect(rect == CGRect(x: 0, y: 0, width: 240, height: 320), "the 90-degree display rect of a portrait video")
        #expect(CGRect.null.applying(quarter).isNull)
    }

    @Test func hashableAndCodable() throws {
        let t = CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)
        #expect(Set([t, t, .identity]).count == 2)
        let decoded = try JSONDecoder().decode(CGAffineTransform.self, from: JSONEncoder().encode(t))
        #expect(decoded == t)
        #expect(CGAffineTransformMake(1, 2, 3, 4, 5, 6) == t)
    }
}
