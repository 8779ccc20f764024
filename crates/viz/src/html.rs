//! The self-contained HTML page for `rxla graph --format html`: the SVG
//! inline, with a few lines of script for pan (drag) and zoom (wheel).
//! No external resources; page text only.

use crate::escape::xml;

/// Inline script: wheel zooms about the pointer, drag pans, `0` resets.
/// Works on every `.pz` container (one per graph).
pub const PAN_ZOOM_JS: &str = r#"<script>
document.querySelectorAll('.pz').forEach(function(box){
  var svg=box.querySelector('svg'); if(!svg) return;
  var vb=svg.viewBox.baseVal, init=[vb.x,vb.y,vb.width,vb.height], drag=null;
  svg.removeAttribute('width'); svg.removeAttribute('height');
  svg.style.width='100%'; svg.style.height='100%';
  function pt(e){var r=svg.getBoundingClientRect(); return [vb.x+(e.clientX-r.left)/r.width*vb.width, vb.y+(e.clientY-r.top)/r.height*vb.height];}
  box.addEventListener('wheel',function(e){e.preventDefault(); var p=pt(e), f=e.deltaY>0?1.15:1/1.15;
    vb.x=p[0]-(p[0]-vb.x)*f; vb.y=p[1]-(p[1]-vb.y)*f; vb.width*=f; vb.height*=f;},{passive:false});
  box.addEventListener('mousedown',function(e){drag=[e.clientX,e.clientY];});
  window.addEventListener('mouseup',function(){drag=null;});
  window.addEventListener('mousemove',function(e){if(!drag) return; var r=svg.getBoundingClientRect();
    vb.x-=(e.clientX-drag[0])/r.width*vb.width; vb.y-=(e.clientY-drag[1])/r.height*vb.height; drag=[e.clientX,e.clientY];});
  box.addEventListener('dblclick',function(){vb.x=init[0];vb.y=init[1];vb.width=init[2];vb.height=init[3];});
});
</script>"#;

/// A page showing `svg` under heading `title`.
pub fn graph_page(title: &str, svg: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{t}</title>\n\
         <style>body{{margin:0;font:14px sans-serif}}h1{{font-size:16px;margin:8px 12px}}\
         .pz{{width:100vw;height:calc(100vh - 60px);overflow:hidden;border-top:1px solid #ddd;cursor:grab}}\
         p{{margin:4px 12px;color:#666}}</style></head>\n<body>\n<h1>{t}</h1>\
         <p>wheel: zoom · drag: pan · double-click: reset · hover a box for its HLO</p>\n\
         <div class=\"pz\">\n{svg}</div>\n{PAN_ZOOM_JS}\n</body></html>\n",
        t = xml(title)
    )
}
