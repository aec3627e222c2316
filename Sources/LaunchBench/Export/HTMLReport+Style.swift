extension HTMLReport {
    /// The page's only styling, inline. No `<` or `&` in it, so the page stays well-formed XML.
    static let css = """
        :root{color-scheme:light;--ink:#1d1d1f;--muted:#6e6e73;--line:#d2d2d7;--bad:#b3261e;--bg:#ffffff;--panel:#f5f5f7}
        *{box-sizing:border-box}
        body{margin:0 auto;max-width:1060px;padding:24px 28px 48px;font:15px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
        h1{font-size:24px;margin:0 0 4px}h1 .app{font-weight:600}
        h2{font-size:20px;margin:0 0 2px}h3{font-size:15px;margin:20px 0 6px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
        .sub,.device-line{color:var(--muted);margin:0 0 12px}
        .device-line{font-size:13px;word-break:break-all}
        section.device,section.run,section.baseline{border-top:1px solid var(--line);padding-top:20px;margin-top:28px}
        .why p{margin:10px 0 2px}.why ul{margin:0;padding-left:20px;font-size:13px}
        .notes{background:#fff4e5;border:1px solid #f0c36d;border-radius:8px;padding:10px 16px;margin:16px 0}
        .notes h2{font-size:15px}.notes ul{margin:4px 0;padding-left:20px}
        .cards{display:flex;flex-wrap:wrap;gap:12px;margin:8px 0 4px}
        .card{background:var(--panel);border-radius:10px;padding:10px 16px;min-width:240px;border-left:5px solid #0072B2}
        .card.warm{border-left-color:#D55E00}
        .card-kind{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
        .card-value{font-size:26px;font-weight:600;font-variant-numeric:tabular-nums}.card-value small{font-size:13px;font-weight:400;color:var(--muted)}
        .card-detail{font-size:13px;color:var(--muted)}
        .bad{color:var(--bad);font-weight:600}
        figure{margin:0}figcaption{font-size:12px;color:var(--muted);margin-top:2px}
        svg.chart{display:block;max-width:100%;height:auto;font-family:inherit}
        svg .axis-label{font-size:13px;fill:var(--ink);font-weight:600}
        svg .bar-value{font-size:11px;fill:#ffffff;font-weight:600}
        svg .bar-total{font-size:12px;fill:var(--ink)}
        svg .legend,svg .tick{font-size:11px;fill:var(--muted)}
        svg .axis-title{font-size:12px;fill:var(--muted)}
        svg .axis{stroke:#8e8e93;stroke-width:1}
        svg .median{stroke:var(--ink);stroke-width:2}
        svg .iqr{fill:#e8e8ed;stroke:#c7c7cc;stroke-width:1}
        .scroll{overflow-x:auto}
        table{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums}
        table.summary th,table.summary td{padding:4px 7px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
        table.summary th:nth-child(-n+2),table.summary td:nth-child(-n+2),table.summary td.text{text-align:left}
        table.overview th:nth-child(-n+5),table.overview td:nth-child(-n+5){text-align:left}
        section.overview{margin-top:20px}section.overview h2{margin-bottom:8px}
        a{color:#0063c7;text-decoration:none}a:hover{text-decoration:underline}
        table.summary thead th{color:var(--muted);font-weight:600}
        .muted{color:#aeaeb2}
        table.meta th{text-align:left;padding:3px 16px 3px 0;color:var(--muted);font-weight:500;vertical-align:top}
        table.meta td{padding:3px 0;word-break:break-word}
        code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
        footer{margin-top:32px;font-size:12px;color:var(--muted);border-top:1px solid var(--line);padding-top:12px}
        .empty{color:var(--muted);font-style:italic}
        .remark{font-size:13px;margin:0 0 8px;color:var(--ink)}
        .remark.bad{color:var(--bad)}
        details.messages{margin-top:12px;font-size:13px}details.messages summary{cursor:pointer;color:var(--muted)}
        details.messages ul{margin:6px 0;padding-left:20px}
        @media print{body{max-width:none}.scroll{overflow:visible}}
        """
}
