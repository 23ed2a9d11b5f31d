// Titles a project document that has no front matter `title` after its first `# heading`: the
// root policies (POLICIES.md, SECURITY.md, ROADMAP.md) are pages of the site too, and front matter
// in them would show on GitHub as a table above the text. TypeDoc would name them after their
// files ("POLICIES").
import { Renderer } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.renderer.on(Renderer.EVENT_BEGIN, (event) => {
    for (const document of event.project.documents ?? []) {
      if (typeof document.frontmatter.title === 'string') continue;
      const text = document.content.map((part) => part.text).join('');
      const heading = /^# (.+)$/m.exec(text)?.[1];
      if (heading !== undefined) document.name = heading.trim();
    }
  });
}
