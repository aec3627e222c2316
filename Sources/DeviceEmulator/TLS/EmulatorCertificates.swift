import Foundation
import NIOSSL

/// The emulated lab's pairing certificates: an RSA-2048 root CA (`CN=Root`, CA:TRUE) and host and device
/// certificates it signed (CA:FALSE, digitalSignature + keyEncipherment), as libimobiledevice makes when it
/// pairs (PROTOCOLS.md §4.2). Made once with the `openssl` CLI and committed: they protect nothing (clients
/// do not verify the device; the keys are public here), they only have to be real enough for a TLS
/// handshake, and fixed PEMs spare every build the swift-certificates/_CryptoExtras compile.
/// FOR THE EMULATOR ONLY — never use these keys for anything else.
enum EmulatorCertificates {
    static let rootCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIC7DCCAdSgAwIBAgIBADANBgkqhkiG9w0BAQsFADAPMQ0wCwYDVQQDDARSb290
        MB4XDTI2MTEyMjIxMDgxMloXDTM2MTExOTIxMDgxMlowDzENMAsGA1UEAwwEUm9v
        dDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAMA5bqBhCchzIH4ZWgFr
        In38EAjcvPp/6nF4yV2WwDJD33e/gh6OohORqgjYinAz+Np7DXkYamkpH/GhCL6A
        +te8Dv6jx0wqulhw6hBnEtXr1XsdyaH9I1RrkqM8ZPtQFvZJPN/gpakmzLb4C3ta
        4OMKH3QCGxcuTUvAPmLrGS/bJZPupHhUtKdgSul60v8ZLPZeSF4+yQrm8tbllmS8
        7UMR1RcAzLn97K7EZCrLRK0w7rMvJoG8tjaudcrPT2SE5wpXX85zYHaysUFmNzHS
        BCfQTkMWz2mKHftb5GSuABMVicRA7tuDDBxjDY5bWd2/8B4KALOFTs0GqK6oIa++
        0rkCAwEAAaNTMFEwHwYDVR0jBBgwFoAUe3BrVxnCMmotUn0pTF+Uyt69BvYwDwYD
        VR0TAQH/BAUwAwEB/zAdBgNVHQ4EFgQUe3BrVxnCMmotUn0pTF+Uyt69BvYwDQYJ
        KoZIhvcNAQELBQADggEBAF5bqpifXwuBP0TUT/OpTuXVkVpARlDn3KKrHQmWD2Vl
        Qs+1T1dSIplbuzj0R8b7lb9MRjPQU3fRCORg4EibHzDy1SIJPFf/jEpWl5U48sEp
        ncZ4nJU8gioKFSVWc+1BiJVxsYBDesaN2PlMXMD2rcbGL79bOpMzQFoENz/2PTQo
        QdQnmwqe2+K8CpdRKc41abjpI/Ysvp3+iD65rbKTj+2nkPST7TjshSxZpCtBCCuq
        bmmjEROfRjneuKIhfYtdT5yZcEObifJPLitE2w4bqZP8msp/N/dXT5b27L9u9351
        WyxbvZhRiXSSwTnEoAkQxZ2u+LtJM+DGFM1E8DpLmpg=
        -----END CERTIFICATE-----
        """
    static let rootPrivateKey = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEogIBAAKCAQEAwDluoGEJyHMgfhlaAWsiffwQCNy8+n/qcXjJXZbAMkPfd7+C
        Ho6iE5GqCNiKcDP42nsNeRhqaSkf8aEIvoD617wO/qPHTCq6WHDqEGcS1evVex3J
        of0jVGuSozxk+1AW9kk83+ClqSbMtvgLe1rg4wofdAIbFy5NS8A+YusZL9slk+6k
        eFS0p2BK6XrS/xks9l5IXj7JCuby1uWWZLztQxHVFwDMuf3srsRkKstErTDusy8m
        gby2Nq51ys9PZITnCldfznNgdrKxQWY3MdIEJ9BOQxbPaYod+1vkZK4AExWJxEDu
        24MMHGMNjltZ3b/wHgoAs4VOzQaorqghr77SuQIDAQABAoIBAC9f+DverqKQfTmW
        1e/zj5StQuZsQMccL5O3ySkftk6tG65PrKoLTTa1d8qmU7hDltmB6lgmBFPWpuDO
        Z3FMKIZy+t8XTk8fWL3jVkykmqfOb9bgCIm78bEksgc5I0os+vvIIRCsNSfzQBD4
        IRxN0Y8jN41H15Vm+/Xnc3i9qH96fX+rpLp+DAXwP2RrPgXyrSeQ7sW+wZ9Bpytd
        GHUb+7A6HcPUL8lrSYu8f0uck8vPcq7aur1RHbCah6J34qmz0GGwUGY6KlESAOxK
        ZmRGP8CO3lTHHZMSYsJelD1q2vMDdbAAUgL140XY9rxVePCW/uFfkPluh349fdS3
        mMeiGuECgYEA82Cmm6zi9wW27sT3ix3rcQTUgZwSew9quPOudCFh1VgN2N1slt5u
        hkolhxbP0g17gESTU+sBCghwrp0COS3Uq9tpU+AQaLtarFFGZp/AJpZPJLx/OZeu
        4gjWAUwomLOIlU45RLiUmGJKlEUn0Ev6nqBZ2yzziD09ScYnXUmktjcCgYEAyjGd
        bL0zACLMZdT4ZqwKTx4S3l0Hi0GNHWfnELr6+Ed79y+H+xABNx0jkgNv+24UjUUw
        BW7btESuPegysgUiscbR3WuergMrGiPN3MOSwK2MVnr3qK13ewQgWJJiyGfRSVvx
        ECef3ewc1sbqa2w9h1+JDm7d1pbO4p0ZuN9mRo8CgYAnW0vWBOE3HR92ATgesRnv
        zt4mj3yVleqmOhHOCc/uViz3EueKhjHNWZQ0AkZdK3z7QxuoCGrEmpTOR+miIX0w
        xWyE+cjths6k6we9dLv4AXqO8ESKpbLMLq2czBoMh4vgySONr2OoOMziqURE9OR0
        Xm3peZ1wPKb6lSaseUo/hQKBgBBw4l0iMVB0g+xP2fb3TEtMpbohFGj1ZpUaisZo
        fdnMbj8WRVdb4M1reCX6U5O9SryGALagYgsRfp2YEO86zaxo/02i359EsK+Kc8Xc
        vUUfl4a8rwCvQkTle//Xv2KOVo1BhaOLpUs1VM7+E7eycHpegVWEHFPDpYT1w06u
        E7HvAoGAUD2KYoajX6Z0F9Pn8d32nGNLolGcoMVzesDTo8nxZEvjkIva1MMClcdA
        AWVlz4SI1hwCWgFcTC92R7s+mjUX4kKjAqwGRBXow87xJN4aSJyanqUi0c5B4vEw
        1QFOLPia9p8dgCrRC1Ncx0hB6GUpENCOWf8dP3BClsnHmkAo0/g=
        -----END RSA PRIVATE KEY-----
        """
    static let hostCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIC+TCCAeGgAwIBAgIBATANBgkqhkiG9w0BAQsFADAPMQ0wCwYDVQQDDARSb290
        MB4XDTI2MTEyMjIxMDgxMloXDTM2MTExOTIxMDgxMlowDzENMAsGA1UEAwwESG9z
        dDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBALamaqubyLfBKAwQpJL/
        t3fyMpQiagEpG4CLehNVV7GTGmZdZsQhtX9hkrROE4dIOt6srTfbE6Sgcgt30HT0
        LQYf3Ldy4xpR+33W2pSYzevBhG3N2psP1alVfUMQUkqK99dqarpExDbQZsHHscFS
        2+q6ktGsWnfj9WLeFxFY5aNSCgpgJ6lrmYlNa7T2cQcTH/WvkqLTPaH2zXLkdXs4
        67cEOlAKcvQ1KDCj7vP+QM3Tuun7gACHXp/BZKf8AC+dqWurrBo9rwDeOkJvxcBz
        Mz1LQSkjbnTIX3onvEGnaxD0eEYxY/gHeV3J3YMgcMv7QEpRjFGas2CdK5w1U8A0
        uiUCAwEAAaNgMF4wDAYDVR0TAQH/BAIwADAOBgNVHQ8BAf8EBAMCBaAwHQYDVR0O
        BBYEFBpRNcjyvWry2/BfgtduTOmZbxkpMB8GA1UdIwQYMBaAFHtwa1cZwjJqLVJ9
        KUxflMrevQb2MA0GCSqGSIb3DQEBCwUAA4IBAQB6Ppl+xY66WB51aPpMGG+SOUvS
        K+kFG664Ql8FWWdsbqVYoTS1Ltdg9WCCKPqtP6J/LD7aOpcgiouP91nt38p7sfMW
        QRInZgffrYCuDp6i/wLznrN1EbR+6dRbFYaOFxsCLZGMWqOuum9vG0JU433nIEVj
        cVeH5As82yb287z4kLdGPEUtOBQX7QzHqtp4ltpWX1CSAfWGYFFA/inv21mzJOzq
        Lf+vXV6iywvw5aK/Xsy1uEMzT+MsSbOKUe70vMIK5a5bHhKTQ90hn5XjsL69I4nV
        OJyognwmMXmFll+734+Ob2bxaP19dOYF47itJzNtsuNpABdWpnrTcxOy1XyR
        -----END CERTIFICATE-----
        """
    static let hostPrivateKey = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEogIBAAKCAQEAtqZqq5vIt8EoDBCkkv+3d/IylCJqASkbgIt6E1VXsZMaZl1m
        xCG1f2GStE4Th0g63qytN9sTpKByC3fQdPQtBh/ct3LjGlH7fdbalJjN68GEbc3a
        mw/VqVV9QxBSSor312pqukTENtBmwcexwVLb6rqS0axad+P1Yt4XEVjlo1IKCmAn
        qWuZiU1rtPZxBxMf9a+SotM9ofbNcuR1ezjrtwQ6UApy9DUoMKPu8/5AzdO66fuA
        AIden8Fkp/wAL52pa6usGj2vAN46Qm/FwHMzPUtBKSNudMhfeie8QadrEPR4RjFj
        +Ad5XcndgyBwy/tASlGMUZqzYJ0rnDVTwDS6JQIDAQABAoIBACz5BXdbPJ0YM5zi
        5S7nxXxEd7U3UwwVm9a3IRgNEbJg0uWFFnZxCWBDvWxldBQBkjM9Z8pCyE+nDOWr
        evmtHL/vDPjjki0rJgYqZrgjdsKXq9ygjPTUvYp8CQOAC48csCFLq9tQ7tJDVqXc
        nnVISmt9xIRZkI4IJGXTYvErxyFC+OrPHzsTxcTjL3hqNzc42ZEkng1nAF33LRj0
        ld13dDgfaCsWxw+oMghnobdH/YCwpT6kKmjJN8jeF6RP0Fg2tf7tazw7TCpW7eNI
        FuoLEDt2p/Sg0Hom+KLnXPkEjW3NVAo/ENpIA5mLbNhBPJGwAE+loNxZNZGXqh4p
        msBluRkCgYEA9YH6b/zS7syw8vPYHtJTj3m/Q7rGDgDmlKl1vMwN0S4mnGWuG5K0
        kSt4D7VkLVdnFqHue47R6/LxeUCTlZVYpSitnkabnfqQ2L16CY3A57p0/J3Qkn6v
        UQ2TMbfULOxXtouFSg4Tp+9fY/RBdkSkVIstp59OPjyg/YWzFwBV320CgYEAvnS7
        l0Sa6ACoifEeAnr+ry2Lt4MX8Rqkv1Sv+HpqBd215Eg5LOy+fmm0mwBOlrKz6+qm
        i1weiF1DFkp50jdzBinJA0M4BcI7Ba9Vh36Oc/DsANaeq2qwsRR3IWkp9mDy0tyP
        mWgatinWcBeUzaxaoxvtmeuCMhOxTftqrxmhupkCgYBiKaJU/KXqTXXC7rTPPhGj
        IG7VSey+1KVdc5Rb9MrhhK5zgkRnSfVgxhyvSzvO1U+mwQB17tkImo7qiGN6P8i9
        4NHqoxi9xd38i2YsQ72J6ge0qfUnXfgDVIYyLuprO+SmXIri3VYGo7NkZ9l0zGVY
        WH3cs9m5EMzeEYNWAxBS0QKBgG8IYODURzbgQ2F/503s5JO+CskmrQuLy+Ybeidz
        PmJDGiqHDIYrUvchqv/+UtK6RfhQqV1vjAFV1ammK5UpbG54Z872HjAFRyGOUV+X
        oXboSr5GYORwY6go1TbuN1+Cr63Mlg8KSSBQDcr1hHPPelvDCWcFjLajEmfzHgQM
        /mNpAoGAAjgU9Tzq8wnrnD+M5oAElA/Y3kjucI6JzV7SR8QEbq/yF98obV6Rcu5C
        65vWM9ZNwVUcoHSK+0zZVrnWPjgpW+JUSMyo6opQqjICEN0ClyXEfPJnbq4ApJi1
        LyNB9R9vpTKJuWEya7HBzW+nJOVknPcWmpdVbrrsJJmZPJgIDUk=
        -----END RSA PRIVATE KEY-----
        """
    static let deviceCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIC+zCCAeOgAwIBAgIBATANBgkqhkiG9w0BAQsFADAPMQ0wCwYDVQQDDARSb290
        MB4XDTI2MTEyMjIxMDgxNFoXDTM2MTExOTIxMDgxNFowETEPMA0GA1UEAwwGRGV2
        aWNlMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA3sLwopnGTKT96Dcl
        I91S5IK6XTeC85EsISOs0z4IHVJfuu/IcPeYQoD5MppZ+vHZgs9CUnGg8P1TQSZm
        /xGWSTxPGkp4lmIer8qTbAvpV++i2P7a1DuXN99EB20H1JU3m75uG9boC1RCO3gS
        w7kKzZaQ17JFT9gIfUYBQSUm0Q9CO3KVeT9MY8eJ+XKNzuWWUnG2dPxeCF9XxTAd
        JagIpAbbLJ8KCc/1LvpQhx5VPjL1fifJ+iC05c+IPPkojaz2OA3o3b7cLk+priCP
        d3TNUYsoXEqTJ8GgIb06rD4ng4k+jkZqnYbjjJim1viZdPy78zjzujQlm/ls87HF
        2dAUDQIDAQABo2AwXjAMBgNVHRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIFoDAdBgNV
        HQ4EFgQUit2WACdx87eS4NIJEbPoVhU1DHcwHwYDVR0jBBgwFoAUe3BrVxnCMmot
        Un0pTF+Uyt69BvYwDQYJKoZIhvcNAQELBQADggEBACl+TBI1OUMAjlbs0sSqrS9Y
        iICaxcXlT2iFu10e3ZtVuohdOfP8gNd55t6J1nv1b/+BQ0nu+GG0hS2X6R4hayyE
        6IdVOf+LTNtdRVk+e923RykaxahhL1oy3EIqpmzM6jymU5O+RndK0ow/bpY7Vhel
        2d/QwzLM8velNzr+BMnzx8He70iy2N/gisvn+VQIP/IyisorTBsWpiZBy9UFtZcb
        ehQguR+6rGXrTVRtIjnjR+jeNkNhb0sL1V5OKl6h9v4P+FGoywizLUFStC9WL7Wx
        reOSns/73DSRMRIEk5KIxRZ7yBEWrRm+1Am1s09oOYGJpQiKqm7fKjhUbf/TNh4=
        -----END CERTIFICATE-----
        """
    static let devicePrivateKey = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEA3sLwopnGTKT96DclI91S5IK6XTeC85EsISOs0z4IHVJfuu/I
        cPeYQoD5MppZ+vHZgs9CUnGg8P1TQSZm/xGWSTxPGkp4lmIer8qTbAvpV++i2P7a
        1DuXN99EB20H1JU3m75uG9boC1RCO3gSw7kKzZaQ17JFT9gIfUYBQSUm0Q9CO3KV
        eT9MY8eJ+XKNzuWWUnG2dPxeCF9XxTAdJagIpAbbLJ8KCc/1LvpQhx5VPjL1fifJ
        +iC05c+IPPkojaz2OA3o3b7cLk+priCPd3TNUYsoXEqTJ8GgIb06rD4ng4k+jkZq
        nYbjjJim1viZdPy78zjzujQlm/ls87HF2dAUDQIDAQABAoIBACgcMMkOaErXsJJW
        D51wFiNoOJddTfp+atRCwLU+p6Zj9THLSCuzIVrkLzrB2S7aymAH4rjGlgSekJWc
        DRKjf4yLS/D/dMwbOcxMbRQY5vi7APcSmKN7YWShknXF15GbFqq39MqVfS3BC7X6
        jmJomL3g/Q6hnmJck1a/Oq2Yu28L+ru5935SlI1QJvxmS8MmfHUkt9tS8mO0eZIE
        e3dg9FAtuuBj3F5pbm1Rl5d9M5E9Fpb6CzqvOK7wcWzmoTaVW8IUV5IDHNFu01FK
        /VeUkp25e5+bIdqNNuOe5ZdZo2Ty5Oh6xDxKoM4KzVvne3dMBSOH/mIvHTNsZek6
        B7zios8CgYEA+YUggiPChueMiQBEN4qzN07jpBb6noK7mU4E9h/HWIKMXpnNK3of
        bIvbQzwjL0DMicOObox+ypdJDJ94NnxeAuqop431GO8jNqyhEkdvLFMbUctt2sa1
        Zq7WZ/rgMaPcspP5yg4gZKEVGIKvakxmj6Kke+94TWfNlD6JilLtL+8CgYEA5Ivq
        VH8Vgr76fX7rGpDQh2T6mJC7TZe8QJNN9fcKbE/9TNrfCvlM4AEcMLTigLcmy8nb
        nfKsBww8kEKuOrSQpKx9Lit9d/TvBGsLIV3BOTQP8XFbYaoJJShdoCa8x5Osdo7C
        JlW9neUy2HmPQjXtwM8eP5Q0udpjdnEl00Rzf8MCgYBBlq/r5ZB9u6HiZVKJMwlW
        8YK/IFcykXTUoICHXeUdq/tP5qfa1NgrxTuWmdk505OwZtoqzv2JLWlDSyvjTp+7
        rok0ugkCS+H6vjf8wRBFG3dj8dBnoLIQUscDQBvskIEz49fWOA5lxT3xWnDXxUt0
        WDFabqE136JXZHTtCk1UuwKBgHcjyQBLT3dc/0+0ffLXUx2BsnEd4cZNN0GiiJ2U
        LsbP3AfYgTVDSKPtcDij0v+uenb5v5bTDoKOCnRZjmHkBxMRKCCNY1bJRGBVPPQj
        37pmPXlr0mtTLHlGVahLCVYw0VLskKFTSQmqlZrro5asbkh4sBgMtn+8LOVtjn5X
        zK3pAoGBAIXuppno8ScYLRt8QbBwIhRHfbNtptADDBaWz3wvbJbedMedm3w5sRcx
        BP5F32mBegh867DzfMwjpjtqhy0lFEcpvwxvmvBS1WYW/VByICah85ioYsvtoXxD
        wkpk4ODF15Sp3b6VTJ3GGWGPJ4ky9ge4VbIwPrTzwDxv1SQK7oaJ
        -----END RSA PRIVATE KEY-----
        """

    /// The TLS server side of the emulated device (service connections): the device certificate and key,
    /// TLS 1.0 to 1.3 and no client-certificate request, like the defaults PROTOCOLS.md §4.2 describes.
    /// One context for the whole process (it is thread-safe and costly to make).
    static func serverContext() throws -> NIOSSLContext {
        try shared.get()
    }

    private static let shared = Result { try makeServerContext() }

    static func makeServerContext() throws -> NIOSSLContext {
        let certificate = try NIOSSLCertificate(bytes: Array(deviceCertificate.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(devicePrivateKey.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv1
        configuration.certificateVerification = .none
        return try NIOSSLContext(configuration: configuration)
    }
}
