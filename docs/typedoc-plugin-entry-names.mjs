// Names a package's entry-point modules after what users import: TypeDoc's packages mode names
// them after the export keys ("" for ".", "node" for "./node"), which reads badly in the site.
import { Converter, ReflectionKind } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const project = context.project;
    for (const module of project.getChildrenByKind(ReflectionKind.Module)) {
      module.name = module.name === '' ? project.name : `${project.name}/${module.name}`;
    }
  });
}
